/**
 * A job record against DynamoDB's item limit: 400 KB, attribute names and values together
 * (https://docs.aws.amazon.com/amazondynamodb/latest/developerguide/ServiceQuotas.html). A job keeps its prompt
 * (up to 256 KiB) and the agent definition its grant gives it (a grant may be 350,000 bytes), so the two can pass
 * it together. A submission is measured before anything is written (shared/core/item-size.ts) and refused,
 * naming `prompt`, unless the record leaves room for all that later writes add: its run ids (one per attempt
 * and per capacity wait), tallies and timestamps, the retry reason and the final error. Those texts are capped
 * as stored (`storedJob`), so a record admitted under the budget fits at every later state and never fails a
 * write half way (stuck `starting` because its run id no longer fits). test/jobs/record-size.test.ts sizes the
 * largest a record can grow to.
 */
import { capUtf8 } from '../core/byte-caps.ts';
import { DYNAMO_ITEM_LIMIT_BYTES, itemBytes } from '../core/item-size.ts';
import { type JobRecord, jobKeys } from './records.ts';

/** Room a record keeps at admission for what later writes add to it. */
export const JOB_RECORD_GROWTH_BYTES = 16 * 1024;
/** The largest a job record may be when it is admitted. */
export const JOB_RECORD_MAX_BYTES = DYNAMO_ITEM_LIMIT_BYTES - JOB_RECORD_GROWTH_BYTES;
/**
 * A final error's name and message, and a retry's reason, as a record keeps them. The view shows 1,000
 * characters of an error (view.ts), at most 4,000 bytes, so nothing a client reads is lost.
 */
export const STORED_ERROR_NAME_BYTES = 256;
export const STORED_ERROR_MESSAGE_BYTES = 4096;

const MARKER = '…';

/** The stored size of job `job`'s item, keys included. */
export const jobItemBytes = (job: JobRecord): number =>
  itemBytes({ ...jobKeys.job(job.grantId, job.number), ...job });

/** `job` as it is stored: its error and retry texts capped in UTF-8 bytes. */
export function storedJob(job: JobRecord): JobRecord {
  const error = job.final?.error;
  const retry = job.retry;
  return {
    ...job,
    ...(job.final && error
      ? {
          final: {
            ...job.final,
            error: {
              name: capUtf8(error.name, STORED_ERROR_NAME_BYTES, MARKER),
              message: capUtf8(error.message, STORED_ERROR_MESSAGE_BYTES, MARKER),
            },
          },
        }
      : {}),
    ...(retry
      ? { retry: { ...retry, reason: capUtf8(retry.reason, STORED_ERROR_MESSAGE_BYTES, MARKER) } }
      : {}),
  };
}
