/**
 * Reading a secret's value, and nothing else: `secretsmanager:GetSecretValue` on the secret (CDK's
 * `grantRead` adds `DescribeSecret`, which no function calls; test/iam checks unused grants), plus decrypting
 * with the secret's customer managed key when it has one (a key policy permitting, Secrets Manager decrypts
 * with the caller's `kms:Decrypt`: https://docs.aws.amazon.com/secretsmanager/latest/userguide/security-encryption.html).
 *
 * A secret's ARN ends in `-` and six random characters. A secret imported by name (`fromSecretNameV2`) or by
 * partial ARN only knows the ARN without them, and AWS authorizes `GetSecretValue` against the full ARN, so the
 * grant names `<partial ARN>-??????` (https://docs.aws.amazon.com/secretsmanager/latest/userguide/reference_iam-permissions.html),
 * as CDK's own `arnForPolicies` does. A secret imported without its key (`fromSecretNameV2` cannot take one)
 * gets no `kms:Decrypt`: import a secret under a customer managed key with `fromSecretAttributes({ secretCompleteArn,
 * encryptionKey })` (docs/deploy.md).
 */
import * as iam from 'aws-cdk-lib/aws-iam';
import type * as kms from 'aws-cdk-lib/aws-kms';

/** A secret as far as reading it goes (a `Secret` or an `ISecret`). */
export type ReadableSecret = {
  readonly secretArn: string;
  /** Undefined for a secret imported by name or partial ARN. */
  readonly secretFullArn?: string | undefined;
  readonly encryptionKey?: kms.IKey | undefined;
};

/** The ARN a policy must name to match the secret's full ARN. */
export function secretArnForPolicies(secret: ReadableSecret): string {
  return secret.secretFullArn ?? `${secret.secretArn}-??????`;
}

export function grantSecretValue(secret: ReadableSecret, grantee: iam.IGrantable): iam.Grant {
  const grant = iam.Grant.addToPrincipal({
    grantee,
    actions: ['secretsmanager:GetSecretValue'],
    resourceArns: [secretArnForPolicies(secret)],
  });
  return secret.encryptionKey ? grant.combine(secret.encryptionKey.grantDecrypt(grantee)) : grant;
}
