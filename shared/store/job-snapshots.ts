/**
 * A delegated job's run is bound to `grant_…` / job number instead of a saved workflow version: the
 * version is the job's snapshot (the agent definition resolved at admission, docs/jobs.md). Deliver, the
 * approval pages and the turn read it through the same `getWorkflowVersion` as a workflow's version.
 */

import type { LiveDelegation } from '../core/live-policy.ts';
import { getGrantHead } from '../jobs/grant-head.ts';
import { JobRecordSchema, jobKeys } from '../jobs/records.ts';
import { attemptDefinition, liveAttemptLimits } from '../jobs/spend.ts';
import type { Run } from '../schemas/run.ts';
import type { WorkflowVersion } from '../schemas/workflow-record.ts';
import type { StoreContext } from './client.ts';
import { getItem } from './reads.ts';

/** Job `number`'s snapshot under `grantId`, as a workflow version; undefined when missing or foreign. */
export async function getJobSnapshot(
  ctx: StoreContext,
  owner: string,
  grantId: string,
  number: number,
): Promise<WorkflowVersion | undefined> {
  const job = await getItem(ctx, jobKeys.job(grantId, number), JobRecordSchema);
  if (!job || job.owner !== owner) return undefined;
  return {
    schemaVersion: 1,
    owner,
    workflowId: grantId,
    version: number,
    // The attempt's budget is what the job has left (jobs/spend.ts): fixed while the attempt runs, since the
    // tally changes only when an attempt settles, after its run ended.
    definition: attemptDefinition(job),
    // A job's snapshot is final from admission on: as a published version is.
    status: 'published',
    createdAt: job.createdAt,
  };
}

/**
 * The live grant a job's run is checked against: the run owner's grant head of the client (one read; a second
 * for a head stored before grants were per owner, shared/jobs/grant-store.ts). When the grant moved since the
 * job was admitted (another version), its limits too, in the run's terms (jobs/spend.ts `liveAttemptLimits`:
 * one more read, of the job's tally); the turn runs the lower of those and the snapshot's (core/live-policy.ts).
 */
export async function getLiveDelegation(ctx: StoreContext, run: Run): Promise<LiveDelegation | undefined> {
  if (run.trigger.type !== 'job') return undefined;
  const grant = (await getGrantHead(ctx, run.owner, run.trigger.clientId))?.record;
  // Another owner's grant, or the client granted anew under another grant id, is no grant of this run.
  if (!grant || grant.owner !== run.owner || grant.grantId !== run.trigger.grantId) return undefined;
  if (grant.revoked) return { revoked: true };
  const live = { revoked: false as const, allowedActions: grant.grant.actions, gates: grant.grant.gates };
  if (grant.version === run.trigger.grantVersion) return live;
  const job = await getItem(ctx, jobKeys.job(grant.grantId, run.workflowVersion), JobRecordSchema);
  // Fail closed: without the job's tally there is nothing to measure the live limits from.
  if (!job || job.owner !== run.owner) return undefined;
  const limits = liveAttemptLimits(job, grant);
  return limits ? { ...live, limits } : live;
}
