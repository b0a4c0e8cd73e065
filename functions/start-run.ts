/**
 * The target of EventBridge Scheduler schedules and EventBridge rules: creates the run once per scheduled
 * time or event id, and starts its execution. A duplicate delivery returns the run already started; one that
 * comes after that run ended without ever starting starts a new run in its place (shared/runs/start-run.ts).
 */

import {
  idempotencyFor,
  type StartRunDeps,
  startRun,
  WorkflowNotRunnableError,
} from '../shared/runs/index.ts';
import { awsExecutions } from '../shared/runtime/aws/executions.ts';
import { awsStore } from '../shared/runtime/aws/store.ts';
import { randomIds, systemClock } from '../shared/runtime/clock.ts';
import {
  handlerTelemetry,
  type LambdaContextLike,
  type Telemetry,
  withInvocation,
} from '../shared/runtime/telemetry.ts';
import { tracedHandler } from '../shared/runtime/tracing.ts';
import type { TriggerProvenance } from '../shared/schemas/run.ts';
import { eventOwnerOf } from '../shared/triggers/index.ts';
import * as z from '../shared/zod.ts';

const ScheduledSchema = z.object({
  owner: z.string().check(z.minLength(1)),
  workflowId: z.string().check(z.minLength(1)),
  scheduledTime: z.string().check(z.minLength(1)),
  scheduleName: z.optional(z.string()),
});
const EventSchema = z.object({
  owner: z.string().check(z.minLength(1)),
  workflowId: z.string().check(z.minLength(1)),
  event: z.looseObject({
    id: z.string().check(z.minLength(1)),
    source: z.string(),
    'detail-type': z.string(),
    detail: z.optional(z.unknown()),
  }),
});
export const StartRunEventSchema = z.union([ScheduledSchema, EventSchema]);

/** What start-run answers: the run, or why a trigger was refused without starting anything. */
export type StartRunResult =
  | { runId: string; created: boolean }
  | { refused: 'owner_mismatch'; eventId: string }
  | { refused: WorkflowNotRunnableError['reason']; workflowId: string };

export function createStartRunHandler(deps: () => StartRunDeps, telemetry = handlerTelemetry()) {
  return async (raw: unknown, context?: LambdaContextLike): Promise<StartRunResult> => {
    const event = StartRunEventSchema.parse(raw);
    return withInvocation(telemetry, { owner: event.owner }, () => start(deps(), event, telemetry), context);
  };
}

async function start(
  deps: StartRunDeps,
  event: z.infer<typeof StartRunEventSchema>,
  telemetry: Telemetry,
): Promise<StartRunResult> {
  // Defence in depth behind the rule's owner-stamped pattern: an event stamped for another owner (or not at
  // all) starts nothing. Logged and answered, not thrown: a retry could not change the answer.
  if ('event' in event && eventOwnerOf(event.event) !== event.owner) {
    telemetry.logger.warn('event refused: its owner stamp is not the workflow owner', {
      workflowId: event.workflowId,
      eventId: event.event.id,
      stamp: eventOwnerOf(event.event) ?? null,
    });
    return { refused: 'owner_mismatch', eventId: event.event.id };
  }
  const trigger: TriggerProvenance =
    'scheduledTime' in event
      ? {
          type: 'schedule',
          scheduleName: event.scheduleName ?? `wf-${event.workflowId}`,
          scheduledTime: new Date(event.scheduledTime).toISOString(),
        }
      : {
          type: 'event',
          eventId: event.event.id,
          source: event.event.source,
          detailType: event.event['detail-type'],
        };
  let started: Awaited<ReturnType<typeof startRun>>;
  try {
    started = await startRun(deps, {
      owner: event.owner,
      workflowId: event.workflowId,
      trigger,
      ...('event' in event ? { input: { event: event.event } } : {}),
      idempotency: idempotencyFor(trigger, event.workflowId)!,
      actor: 'system',
    });
  } catch (error) {
    // A workflow deleted, disabled or switched off (an invocation already on its way when its schedule or rule
    // changed, or a sync that failed) is a refusal on purpose, as on the local stack (shared/local/scheduler.ts):
    // answered, not thrown, so Lambda does not retry it and it never reaches the trigger dead-letter queue
    // (docs/event-triggers.md, "Undelivered triggers").
    if (!(error instanceof WorkflowNotRunnableError)) throw error;
    telemetry.logger.info('trigger refused: the workflow cannot run', {
      workflowId: event.workflowId,
      trigger: trigger.type,
      reason: error.reason,
    });
    return { refused: error.reason, workflowId: event.workflowId };
  }
  const { run, created } = started;
  const context = { runId: run.runId, workflowId: event.workflowId, trigger: trigger.type };
  // A retry or a redrive that comes after the jobs sweep ended the run unstarted (no execution of it existed:
  // shared/runs/pending-sweep.ts) starts a new run in its place, which names it (docs/event-triggers.md).
  const replaced = created && 'replacesRunId' in run.trigger ? run.trigger.replacesRunId : undefined;
  if (replaced)
    telemetry.logger.info('run started in place of a run that ended without starting', {
      ...context,
      replacesRunId: replaced,
    });
  else telemetry.logger.info(created ? 'run started' : 'duplicate trigger: run already started', context);
  return { runId: run.runId, created };
}

export const handler = tracedHandler(
  'start-run',
  createStartRunHandler(() => ({
    store: awsStore(),
    executions: awsExecutions(),
    clock: systemClock,
    ids: randomIds,
  })),
);
