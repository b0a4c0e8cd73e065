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

/** The owner's workflows (first 100) with each one's latest version read. */
export async function workflowSummaries(deps: ConsoleDeps, identity: Identity): Promise<WorkflowSummary[]> {
  const { items } = await apiGet<{ items: WorkflowHead[] }>(deps.api, identity, '/v1/workflows?limit=100');
  return Promise.all(
    items.map(async (head) => {
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
