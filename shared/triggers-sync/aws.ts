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
    await clients.events.send(new PutTargetsCommand(targetsInput(config, request)));
  };
  const deleteRule = async (workflowId: string) => {
    // A rule with targets cannot be deleted: remove the target first.
    await ignoreNotFound(
      clients.events.send(new RemoveTargetsCommand(removeTargetsInput(config, workflowId))),
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
