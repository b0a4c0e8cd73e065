/**
 * The workflow-write routes behind API Gateway (shared/api/workflow-write-routes.ts): create a workflow, save,
 * replace and publish versions (the OpenAPI document is the Api function's). Its own function so the Api function bundles no
 * YAML parser, Ajv or JSONata (docs/deploy.md, "Workflow writes"). Same authorizer and identities as the Api
 * function (`WF_API_AUTH`); the route code is the local stack's.
 */
import type { Hono } from 'hono';
import { ENV } from '../infra/constructs/env-names.ts';
import { iamAuthenticator, jwtAuthenticator } from '../shared/api/auth.ts';
import { createWorkflowWriteApp } from '../shared/api/workflow-write-app.ts';
import { awsApproverReach } from '../shared/runtime/aws/approver-reach.ts';
import { alertTopicArnsOf, alertTopicOwnersOf, awsEnv } from '../shared/runtime/aws/env.ts';
import { awsExternalEngines } from '../shared/runtime/aws/external.ts';
import { awsWorkflowStore } from '../shared/runtime/aws/workflow-store.ts';
import { randomIds, systemClock } from '../shared/runtime/clock.ts';
import { honoLambdaHandler } from '../shared/runtime/hono-lambda.ts';
import {
  awsTriggerSyncFromEnv,
  combineTriggerSyncs,
  localTriggerSync,
} from '../shared/triggers-sync/index.ts';

function build(): Hono {
  const env = awsEnv();
  // Workflows, versions and the trigger index only (no run or job records): a saved version is audited (the
  // owner's workflow-change chain) and its head signed.
  const store = awsWorkflowStore();
  return createWorkflowWriteApp({
    store,
    clock: systemClock,
    ids: randomIds,
    authenticator: process.env[ENV.apiAuth] === 'jwt' ? jwtAuthenticator() : iamAuthenticator(),
    // A saved or published version's schedule or event rule on AWS, plus the trigger index.
    triggerSync: combineTriggerSyncs(awsTriggerSyncFromEnv(), localTriggerSync(store)),
    // The save-time checks: declared alert topics, the owner's credential namespace, the approvers declared
    // for the caller's owner (bundled: approver-reach.ts) and the engines this deployment enables (WF_EXTERNAL_ENGINES).
    alertTopicArns: alertTopicArnsOf(env),
    alertTopicOwners: alertTopicOwnersOf(env),
    credentialNamePrefix: env[ENV.credentialSecretPrefix],
    approverReach: awsApproverReach(),
    externalEngines: awsExternalEngines(),
  }) as unknown as Hono;
}

// No request fields on the log lines: a caller's definition is theirs.
export const handler = honoLambdaHandler('workflow-write', build);
