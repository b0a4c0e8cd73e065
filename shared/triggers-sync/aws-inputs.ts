/**
 * The exact inputs the AWS trigger sync sends: one EventBridge Scheduler schedule per schedule-triggered
 * workflow, one EventBridge rule (with one target) per event-triggered workflow, both invoking start-run.
 */

import type {
  DeleteRuleCommandInput,
  PutRuleCommandInput,
  PutTargetsCommandInput,
  RemoveTargetsCommandInput,
} from '@aws-sdk/client-eventbridge';
import type { CreateScheduleCommandInput, DeleteScheduleCommandInput } from '@aws-sdk/client-scheduler';
import type { Trigger } from '../schemas/trigger.ts';
import { type EventPattern, ownerStampedPattern } from '../triggers/index.ts';
import { type AwsTriggerSyncConfig, ruleNameFor, scheduleNameFor } from './aws-config.ts';
import type { TriggerSyncRequest } from './port.ts';

type ScheduleTrigger = Extract<Trigger, { type: 'schedule' }>;
type EventTrigger = Extract<Trigger, { type: 'event' }>;

/** Scheduler replaces this keyword in the target input with the invocation's scheduled time (documented context attribute). */
export const SCHEDULED_TIME_PLACEHOLDER = '<aws.scheduler.scheduled-time>';
/** EventBridge's predefined input-transformer variable for the whole original event, `detail` included. */
export const WHOLE_EVENT_VARIABLE = '<aws.events.event.json>';
/** The id of the rule's only target. */
export const START_RUN_TARGET_ID = 'start-run';

/**
 * Where a schedule or rule puts an invocation of start-run it could not deliver, after its retry policy (the
 * services' defaults: retries for up to 24 hours, 185 attempts): the runtime's trigger dead-letter queue
 * (infra/constructs/trigger-dead-letters.ts). Without it the invocation is dropped and the run never starts.
 * Scheduler: https://docs.aws.amazon.com/scheduler/latest/UserGuide/configuring-schedule-dlq.html;
 * EventBridge: https://docs.aws.amazon.com/eventbridge/latest/userguide/eb-rule-dlq.html.
 */
const deadLetterConfig = (config: AwsTriggerSyncConfig) => ({ Arn: config.deadLetterQueueArn });

const description = (request: TriggerSyncRequest) =>
  `Workflow ${request.name} (${request.workflowId}) of ${request.owner}`.slice(0, 512);

/** Create (or, identically, update) input of a workflow's schedule. */
export function scheduleInput(
  config: AwsTriggerSyncConfig,
  request: TriggerSyncRequest,
  trigger: ScheduleTrigger,
): CreateScheduleCommandInput {
  return {
    Name: scheduleNameFor(request.workflowId),
    GroupName: config.scheduleGroupName,
    Description: description(request),
    ScheduleExpression: trigger.expression,
    ScheduleExpressionTimezone: trigger.timezone,
    FlexibleTimeWindow: { Mode: 'OFF' },
    State: request.enabled ? 'ENABLED' : 'DISABLED',
    Target: {
      Arn: config.startRunFunctionArn,
      RoleArn: config.schedulerRoleArn,
      DeadLetterConfig: deadLetterConfig(config),
      Input: JSON.stringify({
        owner: request.owner,
        workflowId: request.workflowId,
        scheduledTime: SCHEDULED_TIME_PLACEHOLDER,
      }),
    },
  };
}

export function deleteScheduleInput(
  config: AwsTriggerSyncConfig,
  workflowId: string,
): DeleteScheduleCommandInput {
  return { Name: scheduleNameFor(workflowId), GroupName: config.scheduleGroupName };
}

/** Rule on the custom bus with the workflow's owner-stamped pattern; disabled workflows keep a disabled rule. */
export function ruleInput(
  config: AwsTriggerSyncConfig,
  request: TriggerSyncRequest,
  trigger: EventTrigger,
): PutRuleCommandInput {
  return {
    Name: ruleNameFor(config, request.workflowId),
    EventBusName: config.eventBusName,
    Description: description(request),
    // The workflow's pattern AND its owner's stamp: another owner's events never match (event-owner.ts).
    EventPattern: JSON.stringify(ownerStampedPattern(trigger.pattern as EventPattern, request.owner)),
    State: request.enabled ? 'ENABLED' : 'DISABLED',
  };
}

/**
 * The rule's target: start-run (undelivered invocations to the dead-letter queue), with `{ owner, workflowId, event }`. Owner and workflow id are JSON string
 * literals in the template (their schemas exclude `<` and `>`); the event is the predefined variable,
 * unquoted, because EventBridge inserts it as JSON.
 */
export function targetsInput(
  config: AwsTriggerSyncConfig,
  request: TriggerSyncRequest,
): PutTargetsCommandInput {
  return {
    Rule: ruleNameFor(config, request.workflowId),
    EventBusName: config.eventBusName,
    Targets: [
      {
        Id: START_RUN_TARGET_ID,
        Arn: config.startRunFunctionArn,
        DeadLetterConfig: deadLetterConfig(config),
        InputTransformer: {
          InputTemplate: `{"owner":${JSON.stringify(request.owner)},"workflowId":${JSON.stringify(request.workflowId)},"event":${WHOLE_EVENT_VARIABLE}}`,
        },
      },
    ],
  };
}

export function removeTargetsInput(
  config: AwsTriggerSyncConfig,
  workflowId: string,
): RemoveTargetsCommandInput {
  return {
    Rule: ruleNameFor(config, workflowId),
    EventBusName: config.eventBusName,
    Ids: [START_RUN_TARGET_ID],
  };
}

export function deleteRuleInput(config: AwsTriggerSyncConfig, workflowId: string): DeleteRuleCommandInput {
  return { Name: ruleNameFor(config, workflowId), EventBusName: config.eventBusName };
}
