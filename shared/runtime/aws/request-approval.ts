/** The composition of request-approval: signed links out through the approval topic, owner notices. */
import { ENV } from '../../../infra/constructs/env-names.ts';
import type { RequestApprovalDeps } from '../../approvals-http/request-approval.ts';
import { snsNotifier } from '../../notify/sns.ts';
import { systemClock } from '../clock.ts';
import { handlerTelemetry } from '../telemetry.ts';
import { awsKeyring, awsPublicBaseUrl, awsTaskTokens } from './approvals.ts';
import { awsApproverReach } from './approver-reach.ts';
import { awsEnv } from './env.ts';
import { awsOwnerNotices, awsSns } from './notices.ts';
import { awsStore } from './store.ts';

export async function requestApprovalDeps(): Promise<RequestApprovalDeps> {
  const env = awsEnv();
  const owners = awsOwnerNotices();
  const topic = env[ENV.approvalTopicArn];
  if (!topic) throw new Error(`${ENV.approvalTopicArn} is not set: approval notices have nowhere to go`);
  return {
    store: awsStore(),
    clock: systemClock,
    keyring: await awsKeyring(),
    publicBaseUrl: awsPublicBaseUrl(),
    notifier: snsNotifier(awsSns(), topic, awsApproverReach()),
    taskTokens: awsTaskTokens(),
    ...(owners ? { owners } : {}),
    logger: handlerTelemetry().logger,
  };
}
