/** The composition of the approval pages (approval-http): no model, no egress, no notices. */
import type { ApprovalAppDeps } from '../../approvals-http/deps.ts';
import { systemClock } from '../clock.ts';
import { handlerTelemetry } from '../telemetry.ts';
import { awsKeyring, awsPublicBaseUrl, awsTaskTokens } from './approvals.ts';
import { awsActionSpecs } from './catalog.ts';
import { awsStore } from './store.ts';

export async function approvalAppDeps(): Promise<ApprovalAppDeps> {
  const store = awsStore();
  return {
    store,
    clock: systemClock,
    keyring: await awsKeyring(),
    taskTokens: awsTaskTokens(),
    publicBaseUrl: awsPublicBaseUrl(),
    actions: awsActionSpecs(),
    logger: handlerTelemetry().logger,
  };
}
