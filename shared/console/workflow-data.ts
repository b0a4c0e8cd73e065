/** The signed-in owner's workflows with what the pages show of each: kind, trigger, next fire, spend. */
import type { Identity } from '../api/deps.ts';
import type { Run } from '../schemas/run.ts';
import type { WorkflowHead, WorkflowVersion } from '../schemas/workflow-record.ts';
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
};

/** A page of the owner's workflows (100 at most) with each one's latest version read. */
export async function workflowSummaries(
  deps: ConsoleDeps,
  identity: Identity,
  nextToken?: string,
): Promise<{ summaries: WorkflowSummary[]; nextToken?: string }> {
  const page = await workflowHeadPage(deps, identity, nextToken);
  const summaries = await Promise.all(
    page.items.map(async (head) => {
      const path = `/v1/workflows/${encodeURIComponent(head.workflowId)}`;
      const { version } = await apiGet<{ version: WorkflowVersion }>(deps.api, identity, path);
      const definition = version.definition as { kind?: string; trigger?: Trigger };
      return {
        head,
        kind: definition.kind ?? 'agent',
        trigger: definition.trigger,
        nextFireMs: head.enabled ? nextFire(definition.trigger, deps.clock.nowMs()) : undefined,
      };
    }),
  );
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

/** The workflow's newest run and today's spend. */
export async function workflowActivity(deps: ConsoleDeps, identity: Identity, workflowId: string) {
  const id = encodeURIComponent(workflowId);
  const [runs, spend] = await Promise.all([
    apiGet<{ items: Run[] }>(deps.api, identity, `/v1/runs?workflowId=${id}&limit=1`),
    apiGet<DaySpendAnswer>(deps.api, identity, `/v1/workflows/${id}/spend`),
  ]);
  return { lastRun: runs.items[0], spend };
}
