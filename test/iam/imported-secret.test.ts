/**
 * A team's own Anthropic key secret, imported by name or partial ARN, must be readable by Turn on AWS: Secrets
 * Manager authorizes `GetSecretValue` against the secret's full ARN, which ends in `-` and six random characters
 * (https://docs.aws.amazon.com/secretsmanager/latest/userguide/reference_iam-permissions.html), so a grant on the
 * ARN without them matches nothing. The simulation evaluates Turn's policies against the full ARN.
 */
import { Stack } from 'aws-cdk-lib';
import { Template } from 'aws-cdk-lib/assertions';
import * as kms from 'aws-cdk-lib/aws-kms';
import * as secretsmanager from 'aws-cdk-lib/aws-secretsmanager';
import { describe, expect, it } from 'vitest';
import { WorkflowRuntimeStack } from '../../infra/workflow-runtime-stack.ts';
import { fastApp } from '../infra/synth.ts';
import { type PolicyDocument, StackPolicies } from './policies.ts';
import { decide } from './simulate.ts';
import { REGION } from './stack.ts';
import { ACCOUNT } from './template.ts';

const SECRETS = `arn:aws:secretsmanager:${REGION}:${ACCOUNT}:secret`;
const KEY_ARN = `arn:aws:kms:${REGION}:${ACCOUNT}:key/1234abcd-12ab-34cd-56ef-1234567890ab`;

/**
 * A key's default policy lets the account's IAM policies grant its use; without such a key policy no identity
 * policy can (https://docs.aws.amazon.com/kms/latest/developerguide/key-policy-default.html#key-policy-default-allow-root-enable-iam).
 */
const DEFAULT_KEY_POLICY: PolicyDocument = {
  Version: '2012-10-17',
  Statement: [
    { Effect: 'Allow', Principal: { AWS: `arn:aws:iam::${ACCOUNT}:root` }, Action: 'kms:*', Resource: '*' },
  ],
};

type Import = (scope: Stack) => secretsmanager.ISecret;

function turnOf(importSecret: Import) {
  const app = fastApp();
  const env = { account: ACCOUNT, region: REGION };
  const secrets = new Stack(app, 'Secrets', { env });
  const stack = new WorkflowRuntimeStack(app, 'WfTest', {
    env,
    runtime: { anthropicApiKeySecret: importSecret(secrets) },
  });
  const policies = new StackPolicies({ app, stack, template: Template.fromStack(stack) });
  const turn = policies.functionIdentity('turn');
  return (action: string, resource: string, resourcePolicy?: PolicyDocument) =>
    decide({
      principal: `${turn.roleArn.replace(':iam::', ':sts::').replace(':role/', ':assumed-role/')}/s`,
      action,
      resource,
      identityPolicies: turn.policies,
      resourcePolicy,
    });
}

describe('an imported Anthropic key secret', () => {
  it.each<[string, Import]>([
    ['by name', (scope) => secretsmanager.Secret.fromSecretNameV2(scope, 'Key', 'team/anthropic')],
    [
      'by partial ARN',
      (scope) => secretsmanager.Secret.fromSecretPartialArn(scope, 'Key', `${SECRETS}:team/anthropic`),
    ],
  ])('imported %s is readable by Turn at its full ARN, and no other secret is', async (_, importSecret) => {
    const allowed = turnOf(importSecret);
    const read = 'secretsmanager:GetSecretValue';
    expect(await allowed(read, `${SECRETS}:team/anthropic-AbC123`)).toBe('Allowed');
    expect(await allowed(read, `${SECRETS}:team/anthropic-other-AbC123`)).toBe('ImplicitlyDenied');
    expect(await allowed(read, `${SECRETS}:team/anthropic2-AbC123`)).toBe('ImplicitlyDenied');
  });

  it('imported by complete ARN with its key is readable and decryptable, and only that secret', async () => {
    const allowed = turnOf((scope) =>
      secretsmanager.Secret.fromSecretAttributes(scope, 'Key', {
        secretCompleteArn: `${SECRETS}:team/anthropic-AbC123`,
        encryptionKey: kms.Key.fromKeyArn(scope, 'Cmk', KEY_ARN),
      }),
    );
    expect(await allowed('secretsmanager:GetSecretValue', `${SECRETS}:team/anthropic-AbC123`)).toBe(
      'Allowed',
    );
    expect(await allowed('secretsmanager:GetSecretValue', `${SECRETS}:team/anthropic-XyZ789`)).toBe(
      'ImplicitlyDenied',
    );
    expect(await allowed('kms:Decrypt', KEY_ARN, DEFAULT_KEY_POLICY)).toBe('Allowed');
  });
});
