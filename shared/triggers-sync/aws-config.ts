/** Configuration of the AWS trigger sync, read from the environment the CDK `Triggers` construct sets. */
import { createHash } from 'node:crypto';
import { ENV } from '../../infra/constructs/env-names.ts';
import { TriggerSyncConfigError } from './errors.ts';

export type AwsTriggerSyncConfig = {
  /** EventBridge Scheduler schedule group holding the workflows' schedules. */
  scheduleGroupName: string;
  /** Role Scheduler assumes to invoke the start-run function. */
  schedulerRoleArn: string;
  /** The custom event bus the workflows' rules live on. */
  eventBusName: string;
  /** Prefix of rule names (the API's IAM grant covers `<prefix>*` only). */
  ruleNamePrefix: string;
  /** The start-run function: target of every schedule and rule. */
  startRunFunctionArn: string;
  /** The SQS queue a schedule or rule sends an invocation it could not deliver to (trigger-dead-letters.ts). */
  deadLetterQueueArn: string;
};

/**
 * Rule names: 1–64 of `[.\-_A-Za-z0-9]`
 * (https://docs.aws.amazon.com/eventbridge/latest/APIReference/API_PutRule.html, `Name`). Schedule names: 1–64 of
 * `[0-9a-zA-Z-_.]` (https://docs.aws.amazon.com/scheduler/latest/APIReference/API_CreateSchedule.html, `Name`).
 */
export const MAX_RULE_OR_SCHEDULE_NAME = 64;
const NAME_PATTERN = /^[A-Za-z0-9._-]{1,64}$/;
/** Rule name prefixes allow at most this much, so that prefix + 32 hex digits (128 bits) still fit in 64. */
export const MAX_RULE_NAME_PREFIX = 32;
const PREFIX_PATTERN = /^[A-Za-z0-9._-]{1,32}$/;

/**
 * Schedule name of a workflow, in the runtime's group: `wf-<workflowId>`, at most 3 + 43 characters (workflow ids
 * are `wf_` and 6–40 letters or digits), so it always fits.
 */
export const scheduleNameFor = (workflowId: string): string => checkedName(`wf-${workflowId}`, 'schedule');

/**
 * Rule name of a workflow on the runtime's bus: `<prefix><workflowId>` when that fits in 64 characters, else
 * `<prefix>` and the first hex digits of SHA-256(workflowId) up to 64 (at least 32 digits, as the prefix has at
 * most 32 characters). Workflow ids are random and unique across owners; the rule's pattern fences the owner.
 */
export const ruleNameFor = (config: AwsTriggerSyncConfig, workflowId: string): string => {
  const readable = `${config.ruleNamePrefix}${workflowId}`;
  if (readable.length <= MAX_RULE_OR_SCHEDULE_NAME) return checkedName(readable, 'rule');
  const digest = createHash('sha256').update(workflowId).digest('hex');
  return checkedName(
    `${config.ruleNamePrefix}${digest.slice(0, MAX_RULE_OR_SCHEDULE_NAME - config.ruleNamePrefix.length)}`,
    'rule',
  );
};

function checkedName(name: string, kind: 'schedule' | 'rule'): string {
  if (!NAME_PATTERN.test(name)) {
    throw new TriggerSyncConfigError(
      `${kind} name '${name}' is not valid: at most 64 of A-Z a-z 0-9 . _ - (check the rule prefix)`,
    );
  }
  return name;
}

/** Refuses a rule name prefix that could not form valid names (at most 32 of the allowed characters). */
export function checkRuleNamePrefix(prefix: string): string {
  if (!PREFIX_PATTERN.test(prefix)) {
    throw new TriggerSyncConfigError(
      `rule name prefix '${prefix}' is invalid: use 1–${MAX_RULE_NAME_PREFIX} of A-Z a-z 0-9 . _ -`,
    );
  }
  return prefix;
}

/** Reads the configuration; names every missing variable. */
export function awsTriggerSyncConfigFromEnv(
  env: Readonly<Record<string, string | undefined>> = process.env,
): AwsTriggerSyncConfig {
  const names = {
    scheduleGroupName: ENV.scheduleGroupName,
    schedulerRoleArn: ENV.schedulerRoleArn,
    eventBusName: ENV.eventBusName,
    startRunFunctionArn: ENV.startRunFunctionArn,
    deadLetterQueueArn: ENV.triggerDeadLetterQueueArn,
  } as const;
  const missing = Object.values(names).filter((name) => !env[name]);
  if (missing.length > 0) {
    throw new TriggerSyncConfigError(`trigger sync needs the environment variables ${missing.join(', ')}`);
  }
  return {
    scheduleGroupName: env[names.scheduleGroupName]!,
    schedulerRoleArn: env[names.schedulerRoleArn]!,
    eventBusName: env[names.eventBusName]!,
    startRunFunctionArn: env[names.startRunFunctionArn]!,
    deadLetterQueueArn: env[names.deadLetterQueueArn]!,
    ruleNamePrefix: checkRuleNamePrefix(env[ENV.eventRulePrefix] || 'wf-'),
  };
}
