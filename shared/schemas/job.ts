/**
 * Identifiers and run provenance of delegated agent jobs (docs/jobs.md). A job is an agent run with no
 * saved workflow: its run's `workflowId` is the client's grant id (so per-day spend is per client) and its
 * `workflowVersion` the job's number within that grant (the store resolves it to the job's snapshot).
 */
import * as z from '../zod.ts';

/** A delegation grant's stable id, one per client: `grant_…`. */
export const GrantIdSchema = z
  .string()
  .check(z.regex(/^grant_[A-Za-z0-9]{6,40}$/, 'must be a grant id (grant_…)'));

/** A job id: `job_<number>g<grant suffix>`, so a job is found under its client's grant with one read. */
export const JobIdSchema = z
  .string()
  .check(z.regex(/^job_[1-9][0-9]{0,9}g[A-Za-z0-9]{6,40}$/, 'must be a job id (job_…)'));

/**
 * A client identity: an API key's `client` locally, a JWT client id (`client_id`) on AWS. Same character
 * set as owner ids, so it can be a key segment.
 */
export const ClientIdSchema = z
  .string()
  .check(
    z.minLength(1),
    z.maxLength(128),
    z.regex(/^[A-Za-z0-9._:@+=|/-]+$/, 'may contain letters, digits and . _ : @ + = | / - only'),
  );

/** The run provenance of a job: which client submitted it, under which grant version, which attempt. */
export const JobTriggerSchema = z.object({
  type: z.literal('job'),
  jobId: JobIdSchema,
  clientId: ClientIdSchema,
  grantId: GrantIdSchema,
  grantVersion: z.number().check(z.int(), z.positive()),
  attempt: z.number().check(z.int(), z.positive()),
});
export type JobTrigger = z.infer<typeof JobTriggerSchema>;

/** The grant id a job id names, and the job's number under it; undefined when `jobId` is no job id. */
export function parseJobId(jobId: string): { grantId: string; number: number } | undefined {
  const match = /^job_([1-9][0-9]{0,9})g([A-Za-z0-9]{6,40})$/.exec(jobId);
  if (!match) return undefined;
  return { grantId: `grant_${match[2]}`, number: Number(match[1]) };
}

/** The job id of job `number` under `grantId`. */
export const jobIdOf = (grantId: string, number: number): string =>
  `job_${number}g${grantId.slice('grant_'.length)}`;

/** Whether a run's `workflowId` is a grant (a delegated job's run) rather than a saved workflow. */
export const isGrantWorkflowId = (workflowId: string): boolean => workflowId.startsWith('grant_');
