/**
 * The environment the CDK gives the functions (infra/constructs/env-names.ts), parsed once per container.
 * Each function's composition (this folder) reads only the variables its own path needs.
 */

import { ENV } from '../../../infra/constructs/env-names.ts';
import { type AlertTopicOwners, parseAlertTopicOwners } from '../../notify/alert-topics.ts';
import * as z from '../../zod.ts';

const EnvSchema = z.object({
  [ENV.tableName]: z.string().check(z.minLength(1)),
  [ENV.stateMachineArn]: z.optional(z.string()),
  [ENV.graphStateMachineArn]: z.optional(z.string()),
  [ENV.externalStateMachineArn]: z.optional(z.string()),
  [ENV.externalEngines]: z.optional(z.string()),
  [ENV.modelProvider]: z._default(z.enum(['anthropic', 'bedrock']), 'anthropic'),
  [ENV.anthropicSecretArn]: z.optional(z.string()),
  [ENV.credentialSecretPrefix]: z._default(z.string(), 'wf/'),
  [ENV.credentialRoleArn]: z.optional(z.string()),
  [ENV.internalHosts]: z.optional(z.string()),
  [ENV.approvalBaseUrl]: z.optional(z.string()),
  [ENV.alertTopicArn]: z.optional(z.string()),
  [ENV.alertTopicArns]: z.optional(z.string()),
  [ENV.alertTopicOwners]: z.optional(z.string()),
  [ENV.signingSecretArn]: z.optional(z.string()),
  [ENV.approvalTopicArn]: z.optional(z.string()),
  [ENV.auditSigningKeyArn]: z.optional(z.string()),
  [ENV.ownerTopicArn]: z.optional(z.string()),
  [ENV.apiUrl]: z.optional(z.string()),
});

export type AwsEnv = z.infer<typeof EnvSchema>;

let parsed: AwsEnv | undefined;

/** The function's environment, parsed on first use. */
export function awsEnv(): AwsEnv {
  parsed ??= EnvSchema.parse(process.env);
  return parsed;
}

/** The topics an alert destination may name: the declared ones (alertTopics) and the default alert topic. */
export function alertTopicArnsOf(env: AwsEnv): string[] {
  const listed = (env[ENV.alertTopicArns] ?? '').split(',').filter((arn) => arn !== '');
  const fallback = env[ENV.alertTopicArn];
  return fallback ? [...new Set([fallback, ...listed])] : listed;
}

/** The declared alert topics only some owners may name (throws on a malformed value: fail closed). */
export function alertTopicOwnersOf(env: AwsEnv): AlertTopicOwners {
  return parseAlertTopicOwners(env[ENV.alertTopicOwners]);
}

/** A host that the egress guard must never reach: the runtime's own endpoints. */
export function hostOf(url: string | undefined): string[] {
  try {
    return url ? [new URL(url).hostname] : [];
  } catch {
    return [];
  }
}
