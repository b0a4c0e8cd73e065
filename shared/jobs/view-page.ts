/**
 * A page of job views under Lambda's response limit. A view carries its run's result (up to 64 KiB of text),
 * so 100 of them can pass the 6 MB a synchronous Lambda response may hold
 * (https://docs.aws.amazon.com/lambda/latest/dg/gettingstarted-limits.html). A page keeps the views that fit
 * (shared/runs/step-page.ts), always one; the next page starts after the last kept, from its key, as
 * DynamoDB would have issued it.
 */
import { fittingCount, LISTING_PAGE_BYTES } from '../runs/step-page.ts';
import { encodeToken } from '../store/index.ts';
import { type JobRecord, jobKeys } from './records.ts';
import type { JobView, ListJobsResult } from './schemas.ts';

export function fittingJobs(
  grantId: string,
  shown: readonly { job: JobRecord; view: JobView }[],
  nextToken: string | undefined,
): ListJobsResult {
  const count = fittingCount(
    shown.map(({ view }) => view),
    LISTING_PAGE_BYTES,
  );
  const last = shown[count - 1];
  const token = count < shown.length && last ? encodeToken(jobKeys.job(grantId, last.job.number)) : nextToken;
  return { jobs: shown.slice(0, count).map(({ view }) => view), ...(token ? { nextToken: token } : {}) };
}
