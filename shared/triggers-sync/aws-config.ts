/** Configuration of the AWS trigger sync, read from the environment the CDK `Triggers` construct sets. */
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
};

/** Scheduler and EventBridge names allow at most 64 characters of this set. */
const NAME_PATTERN = /^[A-Za-z0-9._-]{1,64}$/;

/** Schedule name of a workflow, in the runtime's group. */
export const scheduleNameFor = (workflowId: string): string => checkedName(`wf-${workflowId}`, 'schedule');

/** Rule name of a workflow on the runtime's bus. */
export const ruleNameFor = (config: AwsTriggerSyncConfig, workflowId: string): string =>
  checkedName(`${config.ruleNamePrefix}${workflowId}`, 'rule');

function checkedName(name: string, kind: 'schedule' | 'rule'): string {
  if (!NAME_PATTERN.test(name)) {
    throw new TriggerSyncConfigError(
      `${kind} name '${name}' is not valid: at most 64 of A-Z a-z 0-9 . _ - (shorten the rule prefix)`,
    );
  }
  return name;
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
    ruleNamePrefix: env[ENV.eventRulePrefix] || 'wf-',
  };
}
