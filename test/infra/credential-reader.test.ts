/**
 * The AWS half of credential tenancy, as synthesized: the credential-reader role, who may assume it (and
 * with which session tag), what it may read (the owner's namespace, secrets tagged with the same owner),
 * and that no function can read credential secrets with its own role.
 */
import { Stack } from 'aws-cdk-lib';
import { beforeAll, describe, expect, it } from 'vitest';
import { CredentialReader } from '../../infra/constructs/credential-reader.ts';
import { ENV } from '../../infra/constructs/env-names.ts';
import type { HandlerName } from '../../infra/constructs/state-names.ts';
import { OWNER_TAG_KEY } from '../../shared/credentials/owner-key.ts';
import { flatTemplate, logicalId, type SynthesizedRuntime, synthRuntime } from './synth.ts';

type Statement = {
  Effect: string;
  Action: string | string[];
  Resource?: string | string[];
  Principal?: { AWS?: string | string[] };
  Condition?: Record<string, Record<string, unknown>>;
};

let synthesized: SynthesizedRuntime;
let readerRole: string;
const roleId = (handler: HandlerName) => logicalId(synthesized.stack.runtime.functions[handler].role);
const actions = (statement: Statement) => [statement.Action].flat();
const roles = () => flatTemplate(synthesized.template).findResources('AWS::IAM::Role');
const statementsOf = (role: string): Statement[] =>
  Object.values(flatTemplate(synthesized.template).findResources('AWS::IAM::Policy'))
    .filter((policy) => (policy.Properties.Roles as string[]).includes(`\${${role}}`))
    .flatMap((policy) => policy.Properties.PolicyDocument.Statement as Statement[]);

beforeAll(() => {
  synthesized = synthRuntime({ credentialSecretPrefix: 'team/' });
  readerRole = logicalId(synthesized.stack.runtime.credentialReader.role);
});

describe('CredentialReader role', () => {
  it('trusts exactly the turn, deliver, graph-service and external roles to AssumeRole', () => {
    const trust = roles()[readerRole]?.Properties.AssumeRolePolicyDocument.Statement as Statement[];
    const assume = trust.filter((s) => actions(s).includes('sts:AssumeRole'));
    expect(assume).toHaveLength(1);
    expect([assume[0]?.Principal?.AWS].flat().sort()).toEqual(
      [
        `\${${roleId('turn')}.Arn}`,
        `\${${roleId('deliver')}.Arn}`,
        `\${${roleId('graph-service')}.Arn}`,
        `\${${roleId('external')}.Arn}`,
      ].sort(),
    );
    expect(assume[0]?.Condition).toBeUndefined();
  });

  it('lets them TagSession only with a non-empty wf-owner tag and no other tag key', () => {
    const trust = roles()[readerRole]?.Properties.AssumeRolePolicyDocument.Statement as Statement[];
    const tag = trust.filter((s) => actions(s).includes('sts:TagSession'));
    expect(tag).toHaveLength(1);
    expect([tag[0]?.Principal?.AWS].flat().sort()).toEqual(
      [
        `\${${roleId('turn')}.Arn}`,
        `\${${roleId('deliver')}.Arn}`,
        `\${${roleId('graph-service')}.Arn}`,
        `\${${roleId('external')}.Arn}`,
      ].sort(),
    );
    expect(tag[0]?.Condition).toEqual({
      StringLike: { [`aws:RequestTag/${OWNER_TAG_KEY}`]: '?*' },
      'ForAllValues:StringEquals': { 'aws:TagKeys': [OWNER_TAG_KEY] },
    });
  });

  it("reads only secrets in the session owner's namespace whose wf-owner tag matches the session's", () => {
    const statements = statementsOf(readerRole);
    expect(statements).toEqual([
      {
        Effect: 'Allow',
        Action: 'secretsmanager:GetSecretValue',
        Resource: `arn:\${AWS::Partition}:secretsmanager:\${AWS::Region}:\${AWS::AccountId}:secret:team/\${aws:PrincipalTag/${OWNER_TAG_KEY}}/*`,
        Condition: {
          StringEquals: {
            [`aws:ResourceTag/${OWNER_TAG_KEY}`]: `\${aws:PrincipalTag/${OWNER_TAG_KEY}}`,
          },
        },
      },
    ]);
  });

  it.each(['turn', 'deliver'] as const)(
    'lets %s assume it (with tags) and read no credential secret with its own role',
    (handler) => {
      const statements = statementsOf(roleId(handler));
      const sts = statements.filter((s) => actions(s).some((a) => a.startsWith('sts:')));
      expect(sts).toEqual([
        {
          Effect: 'Allow',
          Action: ['sts:AssumeRole', 'sts:TagSession'],
          Resource: `\${${readerRole}.Arn}`,
        },
      ]);
      const secretReads = statements.filter(
        (s) =>
          actions(s).includes('secretsmanager:GetSecretValue') &&
          [s.Resource].flat().some((r) => String(r).includes(':secret:team/')),
      );
      expect(secretReads).toEqual([]);
    },
  );

  it.each(['turn', 'deliver'] as const)('tells %s the role ARN', (handler) => {
    const fn =
      synthesized.template.findResources('AWS::Lambda::Function')[
        logicalId(synthesized.stack.runtime.functions[handler].function)
      ];
    expect(fn?.Properties.Environment.Variables[ENV.credentialRoleArn]).toEqual({
      'Fn::GetAtt': [readerRole, 'Arn'],
    });
  });

  it('tells the api the credential prefix it checks workflow definitions against', () => {
    const fn =
      synthesized.template.findResources('AWS::Lambda::Function')[
        logicalId(synthesized.stack.runtime.functions.api.function)
      ];
    expect(fn?.Properties.Environment.Variables[ENV.credentialSecretPrefix]).toBe('team/');
  });

  it('refuses to be built without readers, naming the functions whose roles it needs', () => {
    const build = () => new CredentialReader(new Stack(), 'Reader', { namePrefix: 'wf/', readers: [] });
    expect(build).toThrow(
      "CredentialReader 'Reader': readers is empty; give the execution roles of the functions that resolve credentials (turn, deliver, graph-service, external)",
    );
  });
});
