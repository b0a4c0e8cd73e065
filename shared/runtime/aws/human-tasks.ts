/**
 * The composition of human tasks: the pages (served by approval-http next to the approval pages) and the
 * requests graph-wait makes for a `human_task` step (links out through the approval topic, so only subscribed
 * addresses are reachable).
 */
import { ENV } from '../../../infra/constructs/env-names.ts';
import type { HumanTaskDeps, RequestHumanTaskDeps } from '../../human-tasks/index.ts';
import { snsNotifier } from '../../notify/sns.ts';
import { systemClock } from '../clock.ts';
import { handlerTelemetry } from '../telemetry.ts';
import { awsKeyring, awsPublicBaseUrl, awsTaskTokens } from './approvals.ts';
import { awsApproverReach } from './approver-reach.ts';
import { awsEnv } from './env.ts';
import { awsSns } from './notices.ts';
import { awsStore } from './store.ts';

export async function humanTaskAppDeps(): Promise<HumanTaskDeps> {
  return {
    store: awsStore(),
    clock: systemClock,
    keyring: await awsKeyring(),
    taskTokens: awsTaskTokens(),
    publicBaseUrl: awsPublicBaseUrl(),
    logger: handlerTelemetry().logger,
  };
}

export async function requestHumanTaskDeps(): Promise<RequestHumanTaskDeps> {
  const env = awsEnv();
  const topic = env[ENV.approvalTopicArn];
  if (!topic) throw new Error(`${ENV.approvalTopicArn} is not set: task notices have nowhere to go`);
  return {
    ...(await humanTaskAppDeps()),
    notifier: snsNotifier(awsSns(), topic, awsApproverReach()),
  };
}
