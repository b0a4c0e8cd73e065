/**
 * `GET /v1/workflows?include=summary`: each workflow of the page with what an overview table shows (kind,
 * trigger, newest run, today's spend), so the console draws its workflows page from one API call a page rather
 * than three per workflow. Every read is of the caller's own listed heads (their owner), read in parallel.
 */

import { kindOf } from '../schemas/any-workflow.ts';
import type { WorkflowHead } from '../schemas/workflow-record.ts';
import type * as z from '../zod.ts';
import type { ApiDeps } from './deps.ts';
import type { responseSchemas } from './response-schemas.ts';
import { daySpendOf } from './routes/workflow-spend.ts';
import { loadVersion } from './workflow-access.ts';

export type WorkflowSummary = z.output<ReturnType<typeof responseSchemas>['WorkflowSummarySchema']>;

async function summaryOf(deps: ApiDeps, head: WorkflowHead): Promise<WorkflowSummary> {
  const [version, runs] = await Promise.all([
    loadVersion(deps, head, head.latestVersion),
    deps.store.listRuns({ owner: head.owner, workflowId: head.workflowId, limit: 1 }),
  ]);
  const newest = runs.items[0];
  return {
    kind: kindOf(version.definition),
    trigger: version.definition.trigger,
    lastRun: newest ? { runId: newest.runId, status: newest.status, createdAt: newest.createdAt } : null,
    spend: await daySpendOf(deps, head, version),
  };
}

/** The heads, each with its summary. */
export const withSummaries = (deps: ApiDeps, heads: readonly WorkflowHead[]) =>
  Promise.all(heads.map(async (head) => ({ ...head, summary: await summaryOf(deps, head) })));
