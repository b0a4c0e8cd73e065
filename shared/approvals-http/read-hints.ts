/**
 * Unsigned hints on an approval link and its form action: which run and workflow head to read alongside the
 * approval, so the page is one read (the approval, its run and its workflow head in one BatchGetItem). A hint is
 * only which item to read: the approval's own `runId`, `owner` and `workflowId` decide, and an item read for a
 * hint that names anything else is dropped unused (shared/store/approvals.ts). A link without hints (one sent
 * before they existed) reads the same items one after another.
 */
import type { Approval } from '../schemas/approval.ts';
import { OwnerIdSchema } from '../schemas/common.ts';
import { GENERATED_RUN_ID } from '../schemas/run-id.ts';
import { WorkflowIdSchema } from '../schemas/workflow-record.ts';

export type ReadHints = {
  runId?: string | undefined;
  head?: { owner: string; workflowId: string } | undefined;
};

const isWorkflowId = (value: string) => WorkflowIdSchema.safeParse(value).success;

/** The query parameters that name the approval's run and workflow head (a delegated job's has no head). */
export function hintParams(approval: Approval): Record<string, string> {
  const params: Record<string, string> = { run: approval.runId };
  if (isWorkflowId(approval.workflowId)) {
    params.owner = approval.owner;
    params.wf = approval.workflowId;
  }
  return params;
}

/** The hints of a request's query; anything that does not look like an id is no hint. */
export function readHintsOf(query: (name: string) => string | undefined): ReadHints {
  const run = query('run');
  const owner = query('owner');
  const workflowId = query('wf');
  const head =
    owner !== undefined &&
    workflowId !== undefined &&
    OwnerIdSchema.safeParse(owner).success &&
    isWorkflowId(workflowId)
      ? { owner, workflowId }
      : undefined;
  return { runId: run !== undefined && GENERATED_RUN_ID.test(run) ? run : undefined, head };
}
