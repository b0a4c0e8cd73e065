/** The HTTP API behind API Gateway (HTTP API): IAM (SigV4) or JWT callers; the owner comes from that identity. */
import type { Hono } from 'hono';
import { handle } from 'hono/aws-lambda';
import { ENV } from '../infra/constructs/env-names.ts';
import { createApiApp, iamAuthenticator, jwtAuthenticator } from '../shared/api/index.ts';
import { awsRuntime } from '../shared/runtime/aws.ts';
import { randomIds, systemClock } from '../shared/runtime/clock.ts';
import {
  awsEventBusFromEnv,
  awsTriggerSyncFromEnv,
  combineTriggerSyncs,
  localTriggerSync,
} from '../shared/triggers-sync/index.ts';

let app: Hono | undefined;

function build(): Hono {
  const runtime = awsRuntime();
  const auditVerifier = runtime.auditVerifier();
  return createApiApp({
    store: runtime.store,
    executions: runtime.executions(),
    clock: systemClock,
    ids: randomIds,
    authenticator: process.env[ENV.apiAuth] === 'jwt' ? jwtAuthenticator() : iamAuthenticator(),
    // Schedules and rules on AWS, plus the trigger index (what `wf` and the API list as active triggers).
    triggerSync: combineTriggerSyncs(awsTriggerSyncFromEnv(), localTriggerSync(runtime.store)),
    // POST /v1/events: owner-stamped events onto the runtime's bus.
    eventBus: awsEventBusFromEnv(),
    ...(auditVerifier ? { auditVerifier } : {}),
  }) as unknown as Hono;
}

export const handler = (
  event: Parameters<ReturnType<typeof handle>>[0],
  context: Parameters<ReturnType<typeof handle>>[1],
) => {
  app ??= build();
  return handle(app)(event, context);
};
