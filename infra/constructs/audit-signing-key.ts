/**
 * `AuditSigningKey`: the KMS asymmetric key (ECC_NIST_P256, SIGN_VERIFY) that signs every owner's audit chain
 * heads (shared/audit/signed-head.ts). Its private key never leaves KMS; verifiers use its public key.
 *
 * - Asymmetric keys and key specs: https://docs.aws.amazon.com/kms/latest/developerguide/symm-asymm-choose-key-spec.html
 *   (ECC_NIST_P256 supports ECDSA_SHA_256; asymmetric keys do not support automatic rotation:
 *   https://docs.aws.amazon.com/kms/latest/developerguide/rotate-keys.html).
 * - `kms:Sign` / `kms:GetPublicKey` are per-key permissions, allowed by the key policy or, where the key policy
 *   lets the account delegate (the CDK default root statement), by IAM policies:
 *   https://docs.aws.amazon.com/kms/latest/developerguide/key-policies.html
 * - The key policy also DENIES `kms:Sign` to every principal but the signing functions' roles. For a role
 *   session `aws:PrincipalArn` is the role's ARN:
 *   https://docs.aws.amazon.com/IAM/latest/UserGuide/reference_policies_condition-keys.html#condition-keys-principalarn
 *   An explicit deny wins over any allow, so no other principal of the account (an admin included) can sign
 *   without first changing the key policy, which CloudTrail records:
 *   https://docs.aws.amazon.com/IAM/latest/UserGuide/reference_policies_evaluation-logic.html
 */
import { RemovalPolicy } from 'aws-cdk-lib';
import * as iam from 'aws-cdk-lib/aws-iam';
import * as kms from 'aws-cdk-lib/aws-kms';
import { Construct } from 'constructs';

/** Properties of an `AuditSigningKey`. */
export interface AuditSigningKeyProps {
  /** The roles of the functions that sign chain heads: the only principals that may call `kms:Sign`. */
  readonly signers: readonly iam.IRole[];
  /** The roles that verify signed heads (`kms:GetPublicKey`). @default - none */
  readonly verifiers?: readonly iam.IRole[];
  /** What happens to the key when it leaves the stack. @default RemovalPolicy.RETAIN (old signatures stay checkable) */
  readonly removalPolicy?: RemovalPolicy;
}

/** The audit signing key, usable for `kms:Sign` only by the given signer roles. */
export class AuditSigningKey extends Construct {
  /** The KMS key. */
  public readonly key: kms.Key;

  constructor(scope: Construct, id: string, props: AuditSigningKeyProps) {
    super(scope, id);
    if (props.signers.length === 0) {
      throw new Error(
        `AuditSigningKey '${id}': signers is empty; name the roles of the functions that sign.`,
      );
    }
    this.key = new kms.Key(this, 'Key', {
      description: 'Signs the per-owner audit chain heads of the workflow runtime (ECDSA P-256).',
      keySpec: kms.KeySpec.ECC_NIST_P256,
      keyUsage: kms.KeyUsage.SIGN_VERIFY,
      removalPolicy: props.removalPolicy ?? RemovalPolicy.RETAIN,
    });
    this.key.addToResourcePolicy(
      new iam.PolicyStatement({
        sid: 'OnlyTheSigningFunctionsSign',
        effect: iam.Effect.DENY,
        principals: [new iam.AnyPrincipal()],
        actions: ['kms:Sign'],
        resources: ['*'],
        conditions: { ArnNotEquals: { 'aws:PrincipalArn': props.signers.map((role) => role.roleArn) } },
      }),
    );
    for (const role of props.signers) this.key.grant(role, 'kms:Sign');
    for (const role of props.verifiers ?? []) this.key.grant(role, 'kms:GetPublicKey');
  }

  /** The key's ARN: the key id signed heads record, and what `aws kms get-public-key --key-id` takes. */
  public get keyArn(): string {
    return this.key.keyArn;
  }
}
