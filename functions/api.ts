/**
 * The HTTP API behind API Gateway (HTTP API): IAM (SigV4) or JWT callers; the owner comes from that identity.
 * Every `/v1` route but the workflow writes (functions/workflow-write.ts serves those, docs/deploy.md).
 */
import type { Hono } from 'hono';
import { ENV } from '../infra/constructs/env-names.ts';
import { createApiFunctionApp } from '../shared/api/api-function-app.ts';
import { iamAuthenticator, jwtAuthenticator } from '../shared/api/auth.ts';
import { humanTaskCloser } from '../shared/human-tasks/port.ts';
import { awsTaskTokens } from '../shared/runtime/aws/approvals.ts';
import { awsApproverReach } from '../shared/runtime/aws/approver-reach.ts';
import { awsEnv } from '../shared/runtime/aws/env.ts';
import { awsExecutions } from '../shared/runtime/aws/executions.ts';
import { awsAuditVerifier, awsSigningStore } from '../shared/runtime/aws/signing-store.ts';
import { randomIds, systemClock } from '../shared/runtime/clock.ts';
import { honoLambdaHandler } from '../shared/runtime/hono-lambda.ts';
import { handlerTelemetry } from '../shared/runtime/telemetry.ts';
import {
  awsEventBusFromEnv,
  awsTriggerSyncFromEnv,
  combineTriggerSyncs,
  localTriggerSync,
} from '../shared/triggers-sync/index.ts';

function build(): Hono {
  const env = awsEnv();
  const store = awsSigningStore();
  const auditVerifier = awsAuditVerifier();
  const taskTokens = awsTaskTokens();
  return createApiFunctionApp({
    store,
    executions: awsExecutions(),
    // Graph runs: resume answers the paused execution's wait; cancel closes the run's open human tasks.
    graph: {
      taskTokens,
      humanTasks: humanTaskCloser({
        store,
        clock: systemClock,
        taskTokens,
        logger: handlerTelemetry().logger,
      }),
    },
    clock: systemClock,
    ids: randomIds,
    credentialNamePrefix: env[ENV.credentialSecretPrefix],
    // Grants: the approvers their gates name must be declared for the caller's owner (the declarations bundled
    // into this function, shared/runtime/aws/approver-reach.ts), as WorkflowWrite checks a workflow's.
    approverReach: awsApproverReach(),
    authenticator: process.env[ENV.apiAuth] === 'jwt' ? jwtAuthenticator() : iamAuthenticator(),
    // Schedules and rules on AWS, plus the trigger index (what `wf` and the API list as active triggers).
    triggerSync: combineTriggerSyncs(awsTriggerSyncFromEnv(), localTriggerSync(store)),
    // POST /v1/events: owner-stamped events onto the runtime's bus.
    eventBus: awsEventBusFromEnv(),
    ...(auditVerifier ? { auditVerifier } : {}),
  }) as unknown as Hono;
}

// No request fields on the log lines: a caller's path and query are theirs. Reading a run adds its id and owner.
export const handler = honoLambdaHandler('api', build);
