/**
 * The AWS trigger sync: a schedule (EventBridge Scheduler) or a rule (EventBridge, custom bus) per workflow,
 * created or updated to match the workflow, disabled with it and deleted with it. Every call is idempotent,
 * so a failed sync is repaired by the next change (or by enabling the workflow again).
 */
import {
  DeleteRuleCommand,
  EventBridgeClient,
  PutRuleCommand,
  PutTargetsCommand,
  RemoveTargetsCommand,
} from '@aws-sdk/client-eventbridge';
import {
  CreateScheduleCommand,
  DeleteScheduleCommand,
  SchedulerClient,
  UpdateScheduleCommand,
} from '@aws-sdk/client-scheduler';
import { recordAwsCallsFromEnv as recorded } from '../runtime/aws-call-recorder.ts';
import { MAX_EVENT_PATTERN_CHARS } from '../triggers/index.ts';
import { type AwsTriggerSyncConfig, awsTriggerSyncConfigFromEnv } from './aws-config.ts';
import {
  deleteRuleInput,
  deleteScheduleInput,
  removeTargetsInput,
  ruleInput,
  scheduleInput,
  targetsInput,
} from './aws-inputs.ts';
import { TriggerSyncConfigError, TriggerSyncError } from './errors.ts';
import type { TriggerSync, TriggerSyncRequest } from './port.ts';

export type SchedulerCommand = CreateScheduleCommand | UpdateScheduleCommand | DeleteScheduleCommand;
export type EventsCommand = PutRuleCommand | PutTargetsCommand | RemoveTargetsCommand | DeleteRuleCommand;

/** The two SDK clients, as far as the sync uses them (a `SchedulerClient` and an `EventBridgeClient` fit). */
export type AwsTriggerSyncClients = {
  scheduler: { send(command: SchedulerCommand): Promise<unknown> };
  events: { send(command: EventsCommand): Promise<unknown> };
};

const errorName = (error: unknown) => (error as { name?: unknown } | undefined)?.name;

type TargetsOutput = {
  FailedEntryCount?: number;
  FailedEntries?: { TargetId?: string; ErrorCode?: string; ErrorMessage?: string }[];
};

/**
 * `PutTargets` and `RemoveTargets` answer 200 even when a target failed, naming it in `FailedEntries`
 * (https://docs.aws.amazon.com/eventbridge/latest/APIReference/API_PutTargets.html,
 * https://docs.aws.amazon.com/eventbridge/latest/APIReference/API_RemoveTargets.html): an enabled rule without
 * its target would start nothing while the sync reported success, so a failed entry fails the sync.
 */
export class TargetsFailedError extends Error {
  override readonly name = 'TargetsFailedError';
}

function requireEveryTarget(output: unknown, call: 'PutTargets' | 'RemoveTargets'): void {
  const { FailedEntryCount = 0, FailedEntries = [] } = (output ?? {}) as TargetsOutput;
  if (FailedEntryCount === 0) return;
  const entries = FailedEntries.map((entry) => `${entry.TargetId ?? '?'}: ${entry.ErrorCode ?? 'unknown'}`);
  throw new TargetsFailedError(`${call} failed for ${FailedEntryCount} target(s) (${entries.join(', ')})`);
}

/** Schedules and rules for workflows, through the given clients. */
export function awsTriggerSync(config: AwsTriggerSyncConfig, clients: AwsTriggerSyncClients): TriggerSync {
  const ignoreNotFound = async (send: Promise<unknown>) => {
    try {
      await send;
    } catch (error) {
      if (errorName(error) !== 'ResourceNotFoundException') throw error;
    }
  };

  const putSchedule = async (request: TriggerSyncRequest) => {
    if (request.trigger.type !== 'schedule') return;
    const input = scheduleInput(config, request, request.trigger);
    try {
      await clients.scheduler.send(new CreateScheduleCommand(input));
    } catch (error) {
      if (errorName(error) !== 'ConflictException') throw error;
      // It exists: UpdateSchedule replaces every field, so the same input describes it fully.
      await clients.scheduler.send(new UpdateScheduleCommand(input));
    }
  };
  const deleteSchedule = (workflowId: string) =>
    ignoreNotFound(
      clients.scheduler.send(new DeleteScheduleCommand(deleteScheduleInput(config, workflowId))),
    );

  const putRule = async (request: TriggerSyncRequest) => {
    if (request.trigger.type !== 'event') return;
    const input = ruleInput(config, request, request.trigger);
    // Checked when the workflow is saved; a pattern saved before that check is refused here, not half-put.
    if ((input.EventPattern?.length ?? 0) > MAX_EVENT_PATTERN_CHARS) {
      throw new TriggerSyncConfigError(
        `trigger.pattern: ${input.EventPattern?.length} characters with the owner stamp; EventBridge accepts ${MAX_EVENT_PATTERN_CHARS}`,
      );
    }
    await clients.events.send(new PutRuleCommand(input));
    requireEveryTarget(
      await clients.events.send(new PutTargetsCommand(targetsInput(config, request))),
      'PutTargets',
    );
  };
  const deleteRule = async (workflowId: string) => {
    // A rule with targets cannot be deleted: remove the target first.
    await ignoreNotFound(
      clients.events
        .send(new RemoveTargetsCommand(removeTargetsInput(config, workflowId)))
        .then((output) => requireEveryTarget(output, 'RemoveTargets')),
    );
    await ignoreNotFound(clients.events.send(new DeleteRuleCommand(deleteRuleInput(config, workflowId))));
  };

  return {
    async sync(request) {
      const type = request.deleted ? 'deleted' : request.trigger.type;
      try {
        if (type === 'schedule') {
          await putSchedule(request);
          await deleteRule(request.workflowId);
        } else if (type === 'event') {
          await putRule(request);
          await deleteSchedule(request.workflowId);
        } else {
          await deleteSchedule(request.workflowId);
          await deleteRule(request.workflowId);
        }
      } catch (error) {
        throw new TriggerSyncError(
          request.workflowId,
          `${type === 'schedule' ? 'schedule' : type === 'event' ? 'event rule' : 'cleanup'} failed: ${String(errorName(error) ?? 'error')}`,
          { cause: error },
        );
      }
    },
  };
}

/** The AWS trigger sync with real SDK clients and configuration from the environment (the api Lambda). */
export function awsTriggerSyncFromEnv(
  env: Readonly<Record<string, string | undefined>> = process.env,
): TriggerSync {
  return awsTriggerSync(awsTriggerSyncConfigFromEnv(env), {
    scheduler: recorded(new SchedulerClient({})),
    events: recorded(new EventBridgeClient({})),
  });
}
