/**
 * Reading a secret's value, and nothing else: `secretsmanager:GetSecretValue` on the secret (CDK's
 * `grantRead` adds `DescribeSecret`, which no function calls; test/iam checks unused grants), plus decrypting
 * with the secret's customer managed key when it has one (a key policy permitting, Secrets Manager decrypts
 * with the caller's `kms:Decrypt`: https://docs.aws.amazon.com/secretsmanager/latest/userguide/security-encryption.html).
 */
import * as iam from 'aws-cdk-lib/aws-iam';
import type * as kms from 'aws-cdk-lib/aws-kms';

/** A secret as far as reading it goes (a `Secret` or an `ISecret`). */
export type ReadableSecret = { readonly secretArn: string; readonly encryptionKey?: kms.IKey | undefined };

export function grantSecretValue(secret: ReadableSecret, grantee: iam.IGrantable): iam.Grant {
  const grant = iam.Grant.addToPrincipal({
    grantee,
    actions: ['secretsmanager:GetSecretValue'],
    resourceArns: [secret.secretArn],
  });
  return secret.encryptionKey ? grant.combine(secret.encryptionKey.grantDecrypt(grantee)) : grant;
}
