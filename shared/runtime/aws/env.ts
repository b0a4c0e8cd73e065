/**
 * The environment the CDK gives the functions (infra/constructs/env-names.ts), parsed once per container.
 * Each function's composition (this folder) reads only the variables its own path needs.
 */
import * as z from 'zod';
import { ENV } from '../../../infra/constructs/env-names.ts';
import { type AlertTopicOwners, parseAlertTopicOwners } from '../../notify/alert-topics.ts';

const EnvSchema = z.object({
  [ENV.tableName]: z.string().min(1),
  [ENV.stateMachineArn]: z.string().optional(),
  [ENV.graphStateMachineArn]: z.string().optional(),
  [ENV.externalStateMachineArn]: z.string().optional(),
  [ENV.externalEngines]: z.string().optional(),
  [ENV.modelProvider]: z.enum(['anthropic', 'bedrock']).default('anthropic'),
  [ENV.anthropicSecretArn]: z.string().optional(),
  [ENV.credentialSecretPrefix]: z.string().default('wf/'),
  [ENV.credentialRoleArn]: z.string().optional(),
  [ENV.internalHosts]: z.string().optional(),
  [ENV.approvalBaseUrl]: z.string().optional(),
  [ENV.alertTopicArn]: z.string().optional(),
  [ENV.alertTopicArns]: z.string().optional(),
  [ENV.alertTopicOwners]: z.string().optional(),
  [ENV.signingSecretArn]: z.string().optional(),
  [ENV.approvalTopicArn]: z.string().optional(),
  [ENV.auditSigningKeyArn]: z.string().optional(),
  [ENV.approverOwners]: z.string().optional(),
  [ENV.ownerTopicArn]: z.string().optional(),
  [ENV.apiUrl]: z.string().optional(),
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
