import { Match } from 'aws-cdk-lib/assertions';
import { describe, expect, it } from 'vitest';
import { ENV } from '../../infra/constructs/env-names.ts';
import { DELETE_PARTITIONS } from '../../infra/constructs/table-access.ts';
import { defaultRuntime, logicalId } from './synth.ts';

const { stack, template } = defaultRuntime();
const runtime = stack.runtime;
const keyId = logicalId(runtime.auditSigningKey.key);
const roleId = (name: keyof typeof runtime.functions) => logicalId(runtime.functions[name].role);
const SIGNERS = ['api', 'workflow-write', 'deliver', 'mark-failed', 'external', 'mcp', 'jobs-sweep'] as const;

/** The policy statements attached to a role (by its logical id), flattened. */
function statementsOf(role: string): { Action: string | string[]; Resource: unknown; Effect: string }[] {
  return Object.values(template.findResources('AWS::IAM::Policy'))
    .filter((policy) => (policy.Properties.Roles as { Ref: string }[]).some((ref) => ref.Ref === role))
    .flatMap((policy) => policy.Properties.PolicyDocument.Statement);
}
const grantsOn = (role: string, action: string) =>
  statementsOf(role).some(
    (statement) =>
      [statement.Action].flat().includes(action) && JSON.stringify(statement.Resource).includes(keyId),
  );

describe('AuditSigningKey', () => {
  it('is an ECC_NIST_P256 SIGN_VERIFY key, retained', () => {
    // Assess
    template.hasResource('AWS::KMS::Key', {
      Properties: Match.objectLike({ KeySpec: 'ECC_NIST_P256', KeyUsage: 'SIGN_VERIFY' }),
      DeletionPolicy: 'Retain',
    });
  });

  it('denies kms:Sign in its key policy to every principal but the signing functions’ roles', () => {
    // Prepare
    const key = template.findResources('AWS::KMS::Key')[keyId]!;
    const deny = key.Properties.KeyPolicy.Statement.find(
      (statement: { Sid?: string }) => statement.Sid === 'OnlyTheSigningFunctionsSign',
    );
    // Assess
    expect(deny).toMatchObject({ Effect: 'Deny', Principal: { AWS: '*' }, Action: 'kms:Sign' });
    expect(deny.Condition.ArnNotEquals['aws:PrincipalArn']).toEqual(
      SIGNERS.map((name) => ({ 'Fn::GetAtt': [roleId(name), 'Arn'] })),
    );
  });

  it('grants kms:Sign to the signing functions only, kms:GetPublicKey to the api only', () => {
    // Assess
    for (const name of Object.keys(runtime.functions) as (keyof typeof runtime.functions)[]) {
      expect([name, grantsOn(roleId(name), 'kms:Sign')]).toEqual([
        name,
        (SIGNERS as readonly string[]).includes(name),
      ]);
      expect([name, grantsOn(roleId(name), 'kms:GetPublicKey')]).toEqual([name, name === 'api']);
    }
  });

  it('signs for every function that anchors run heads (each may delete a pending anchor in OWNER#)', () => {
    // Prepare: an anchor's transaction deletes the run's pending anchor in the owner's partition
    // (shared/store/anchor-group.ts), so the functions that anchor are those granted that delete.
    const anchoring = Object.entries(DELETE_PARTITIONS)
      .filter(([, partitions]) => partitions?.includes('OWNER#*'))
      .map(([name]) => name as keyof typeof runtime.functions);
    // Assess: after every anchor the owner's heads are signed (docs/security.md, "Signed heads").
    expect(anchoring).toEqual(expect.arrayContaining(['deliver', 'mark-failed', 'mcp', 'jobs-sweep']));
    for (const name of anchoring) {
      const fn =
        template.findResources('AWS::Lambda::Function')[logicalId(runtime.functions[name].function)]!;
      const env = fn.Properties.Environment?.Variables ?? {};
      expect([name, grantsOn(roleId(name), 'kms:Sign'), ENV.auditSigningKeyArn in env]).toEqual([
        name,
        true,
        true,
      ]);
    }
  });

  it('tells exactly the signing functions the key ARN', () => {
    // Assess
    for (const name of Object.keys(runtime.functions) as (keyof typeof runtime.functions)[]) {
      const fn =
        template.findResources('AWS::Lambda::Function')[logicalId(runtime.functions[name].function)]!;
      const env = fn.Properties.Environment?.Variables ?? {};
      expect([name, ENV.auditSigningKeyArn in env]).toEqual([
        name,
        (SIGNERS as readonly string[]).includes(name),
      ]);
    }
  });
});
