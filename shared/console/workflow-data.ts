/** The signed-in owner's workflows with what the pages show of each: kind, trigger, next fire, spend. */
import type { Identity } from '../api/deps.ts';
import type { Run } from '../schemas/run.ts';
import type { WorkflowHead } from '../schemas/workflow-record.ts';
import { nextFireTimes } from '../triggers/schedule.ts';
import { apiGet, type ConsoleDeps } from './deps.ts';

type Trigger = { type: string; expression?: string; timezone?: string };
export type DaySpendAnswer = {
  day: string;
  totalUsd: number;
  reservedUsd: number;
  ceilingUsd: number | null;
};

export type WorkflowSummary = {
  head: WorkflowHead;
  kind: string;
  trigger: Trigger | undefined;
  /** The next scheduled fire time (epoch ms), for an enabled schedule trigger. */
  nextFireMs: number | undefined;
  lastRun: Pick<Run, 'runId' | 'status' | 'createdAt'> | null;
  spend: DaySpendAnswer;
};

/** A list item of `GET /v1/workflows?include=summary` (shared/api/workflow-summary.ts). */
type SummarizedHead = WorkflowHead & {
  summary: Omit<WorkflowSummary, 'head' | 'nextFireMs' | 'trigger'> & { trigger?: Trigger };
};

/**
 * A page of the owner's workflows (100 at most) with what the workflows page shows of each, from ONE API call
 * (`include=summary`): the page's cost does not grow with the number of workflows.
 */
export async function workflowSummaries(
  deps: ConsoleDeps,
  identity: Identity,
  nextToken?: string,
): Promise<{ summaries: WorkflowSummary[]; nextToken?: string }> {
  const query = new URLSearchParams({
    limit: '100',
    include: 'summary',
    ...(nextToken ? { nextToken } : {}),
  });
  const page = await apiGet<{ items: SummarizedHead[]; nextToken?: string }>(
    deps.api,
    identity,
    `/v1/workflows?${query}`,
  );
  const summaries = page.items.map(({ summary, ...head }) => ({
    head,
    kind: summary.kind,
    trigger: summary.trigger,
    nextFireMs: head.enabled ? nextFire(summary.trigger, deps.clock.nowMs()) : undefined,
    lastRun: summary.lastRun,
    spend: summary.spend,
  }));
  return { summaries, ...(page.nextToken ? { nextToken: page.nextToken } : {}) };
}

type HeadPage = { items: WorkflowHead[]; nextToken?: string };

const workflowHeadPage = (deps: ConsoleDeps, identity: Identity, nextToken: string | undefined) =>
  apiGet<HeadPage>(
    deps.api,
    identity,
    `/v1/workflows?${new URLSearchParams({ limit: '100', ...(nextToken ? { nextToken } : {}) })}`,
  );

/** Pages of workflow heads read for a filter's choices, at most (2,000 workflows). */
const MAX_HEAD_PAGES = 20;

/** The owner's workflow heads, every page (up to {@link MAX_HEAD_PAGES}): the runs filter's choices. */
export async function allWorkflowHeads(deps: ConsoleDeps, identity: Identity): Promise<WorkflowHead[]> {
  const heads: WorkflowHead[] = [];
  let token: string | undefined;
  for (let page = 0; page < MAX_HEAD_PAGES; page++) {
    const answer = await workflowHeadPage(deps, identity, token);
    heads.push(...answer.items);
    token = answer.nextToken;
    if (token === undefined) break;
  }
  return heads;
}

/** The next fire of a schedule trigger after `nowMs` (EventBridge Scheduler semantics, shared/triggers). */
export function nextFire(trigger: Trigger | undefined, nowMs: number): number | undefined {
  if (trigger?.type !== 'schedule' || trigger.expression === undefined) return undefined;
  try {
    return nextFireTimes(trigger.expression, trigger.timezone ?? 'UTC', new Date(nowMs), 1)[0]?.getTime();
  } catch {
    return undefined;
  }
}
