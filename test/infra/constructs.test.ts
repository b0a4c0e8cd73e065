import { readFileSync } from 'node:fs';
import { Duration, RemovalPolicy, Stack } from 'aws-cdk-lib';
import { Match, Template } from 'aws-cdk-lib/assertions';
import * as lambda from 'aws-cdk-lib/aws-lambda';
import * as secretsmanager from 'aws-cdk-lib/aws-secretsmanager';
import { describe, expect, it } from 'vitest';
import { ApprovalNotices } from '../../infra/constructs/approval-notices.ts';
import { MAX_OWNERS_PER_SUBSCRIPTION } from '../../infra/constructs/notice-topic.ts';
import { OwnerNotices } from '../../infra/constructs/owner-notices.ts';
import { RunTable } from '../../infra/constructs/run-table.ts';
import { ApiAuth } from '../../infra/constructs/runtime-api.ts';
import { RuntimeFunction } from '../../infra/constructs/runtime-function.ts';
import { Triggers } from '../../infra/constructs/triggers.ts';
import {
  ANTHROPIC_API_KEY_PLACEHOLDER,
  WorkflowRuntime,
  type WorkflowRuntimeProps,
} from '../../infra/constructs/workflow-runtime.ts';
import { settingsFromContext } from '../../infra/context.ts';
import { fastApp, nagFindings } from './synth.ts';

const newStack = () => new Stack(fastApp(), 'Unit');
const inlineFunction = (stack: Stack) =>
  new lambda.Function(stack, 'Fn', {
    runtime: lambda.Runtime.NODEJS_22_X,
    handler: 'index.handler',
    code: lambda.Code.fromInline('exports.handler = async () => {};'),
  });

describe('RuntimeFunction', () => {
  it.each([
    ['a file name as handlerName', { handlerName: 'Turn.ts' }, /handlerName 'Turn\.ts' .*kebab-case/],
    [
      'a missing entry',
      { handlerName: 'no-such-handler' },
      /functions\/no-such-handler\.ts does not exist; create it/,
    ],
    ['64 MiB', { handlerName: 'turn', memorySize: 64 }, /memorySize 64 .*128 to 10240/],
    [
      'a 16-minute timeout',
      { handlerName: 'turn', timeout: Duration.minutes(16) },
      /timeout 16 minutes exceeds .*Duration\.minutes\(15\)/,
    ],
  ])('rejects %s, naming the value and the fix', (_label, props, message) => {
    expect(() => new RuntimeFunction(newStack(), 'Fn', props)).toThrow(message);
  });

  it('uses the defaults when only the handler is given', () => {
    const stack = newStack();
    new RuntimeFunction(stack, 'Fn', { handlerName: 'expire' });
    Template.fromStack(stack).hasResourceProperties('AWS::Lambda::Function', {
      MemorySize: 512,
      Timeout: 30,
      Architectures: ['arm64'],
      TracingConfig: { Mode: 'Active' },
    });
    Template.fromStack(stack).hasResourceProperties('AWS::Logs::LogGroup', { RetentionInDays: 30 });
  });
});

describe('ApprovalNotices', () => {
  const team = (email: string, owners: string[] = ['team-a']) => ({ email, owners });
  it.each([
    [[team('not-an-email')], /approver 'not-an-email' is not an email address/],
    [[team('a@example.com, b@example.com')], /is not an email address; pass one address per entry/],
    [[team('a@example.com'), team('A@example.com')], /approver 'a@example.com' is listed twice/],
    [[team('a@example.com', [])], /approver 'a@example.com' lists no owners/],
    [[team('a@example.com', ['*', 'team-a'])], /'\*' \(every owner\) stands alone/],
    [[team('a@example.com', ['team a'])], /owner 'team a' of approver 'a@example.com' is not an owner id/],
  ])('rejects approvers %o', (approvers, message) => {
    expect(() => new ApprovalNotices(newStack(), 'Notices', { approvers })).toThrow(message);
  });

  it('refuses a bare address (the declaration before approvers were per owner), naming the upgrade', () => {
    const approvers = ['carol@example.com'] as unknown as { email: string; owners: string[] }[];
    expect(() => new ApprovalNotices(newStack(), 'Notices', { approvers })).toThrow(
      /approver 'carol@example.com' names no owners; .*owners: \['<owner id>'\]/,
    );
  });

  it("filters each subscription on its approver and its declared owners ('*': on the approver only)", () => {
    const stack = newStack();
    new ApprovalNotices(stack, 'Notices', {
      approvers: [team('Carol@Example.com', ['team-a', 'team-b']), team('shared@example.com', ['*'])],
    });
    const policies = Object.values(Template.fromStack(stack).findResources('AWS::SNS::Subscription')).map(
      (resource) => [resource.Properties.Endpoint, resource.Properties.FilterPolicy],
    );
    expect(policies).toEqual([
      ['carol@example.com', { approver: ['carol@example.com'], owner: ['team-a', 'team-b'] }],
      ['shared@example.com', { approver: ['shared@example.com'] }],
    ]);
  });
});

describe('OwnerNotices', () => {
  const listed = (count: number) =>
    Array.from({ length: count }, (_, i) => ({
      owner: `123456789012:role:team-${i}`,
      email: 'ops@example.com',
    }));

  it('gives an address listed for 150 owners one subscription filtering on all of them', () => {
    const stack = newStack();
    new OwnerNotices(stack, 'Owners', { owners: listed(MAX_OWNERS_PER_SUBSCRIPTION) });
    const [subscription] = Object.values(Template.fromStack(stack).findResources('AWS::SNS::Subscription'));
    expect(subscription?.Properties.FilterPolicy.owner).toHaveLength(MAX_OWNERS_PER_SUBSCRIPTION);
  });

  it('refuses an address listed for more owners than an SNS filter policy holds, naming it', () => {
    expect(
      () => new OwnerNotices(newStack(), 'Owners', { owners: listed(MAX_OWNERS_PER_SUBSCRIPTION + 1) }),
    ).toThrow(/'ops@example.com' is listed for 151 owners; .*SNS filter policy holds at most 150/);
  });
});

describe('ApiAuth', () => {
  it.each([
    [
      { issuer: 'http://issuer.example.com', audience: ['x'] },
      /issuer 'http:\/\/issuer\.example\.com' is not an https URL/,
    ],
    [{ issuer: 'not a url', audience: ['x'] }, /issuer 'not a url' is not an https URL/],
    [{ issuer: 'https://issuer.example.com', audience: [] }, /audience is empty/],
  ])('rejects jwt options %o', (options, message) => {
    expect(() => ApiAuth.jwt(options)).toThrow(message);
  });

  it('puts one JWT authorizer on /v1 and /mcp and still none on /approvals', () => {
    const stack = newStack();
    new WorkflowRuntime(stack, 'Runtime', {
      apiAuth: ApiAuth.jwt({ issuer: 'https://issuer.example.com', audience: ['client-1'] }),
    });
    const template = Template.fromStack(stack);
    template.hasResourceProperties('AWS::ApiGatewayV2::Authorizer', {
      AuthorizerType: 'JWT',
      JwtConfiguration: { Issuer: 'https://issuer.example.com', Audience: ['client-1'] },
    });
    template.hasResourceProperties('AWS::ApiGatewayV2::Route', {
      RouteKey: 'ANY /v1/{proxy+}',
      AuthorizationType: 'JWT',
    });
    // The MCP clients are the /v1/jobs clients: the same authorizer, not a second one.
    template.resourceCountIs('AWS::ApiGatewayV2::Authorizer', 1);
    const authorizerId = Object.keys(template.findResources('AWS::ApiGatewayV2::Authorizer'))[0];
    for (const routeKey of ['ANY /v1/{proxy+}', 'ANY /mcp'])
      template.hasResourceProperties('AWS::ApiGatewayV2::Route', {
        RouteKey: routeKey,
        AuthorizationType: 'JWT',
        AuthorizerId: { Ref: authorizerId },
      });
    template.hasResourceProperties('AWS::ApiGatewayV2::Route', {
      RouteKey: 'ANY /approvals/{proxy+}',
      AuthorizationType: 'NONE',
    });
    template.hasResourceProperties('AWS::Lambda::Function', {
      Environment: { Variables: Match.objectLike({ WF_API_AUTH: 'jwt' }) },
    });
  });
});

describe('Triggers', () => {
  it.each([
    [{ eventBusName: 'default' }, /eventBusName 'default' is not a custom bus name/],
    [{ ruleNamePrefix: 'wf prefix' }, /ruleNamePrefix 'wf prefix' is invalid/],
    [{ ruleNamePrefix: 'p'.repeat(33) }, /ruleNamePrefix 'p{33}' is invalid; use 1–32/],
    [{ scheduleGroupName: 'g'.repeat(65) }, /scheduleGroupName 'g{65}' is invalid; use 1–64/],
  ])('rejects %o', (props, message) => {
    const stack = newStack();
    expect(
      () => new Triggers(stack, 'Triggers', { startRunFunction: inlineFunction(stack), ...props }),
    ).toThrow(message);
  });

  it('gives two stacks of one app (one account) different bus names by default', () => {
    const app = fastApp();
    const stacks = ['First', 'Second'].map((name) => {
      const stack = new Stack(app, name);
      new Triggers(stack, 'Triggers', { startRunFunction: inlineFunction(stack) });
      return stack;
    });
    const busNames = stacks.map((stack) => {
      const buses = Template.fromStack(stack).findResources('AWS::Events::EventBus');
      return Object.values(buses).map((bus) => bus.Properties.Name as string);
    });
    expect(busNames[0]).toHaveLength(1);
    expect(busNames[1]).toHaveLength(1);
    expect(busNames[0]?.[0]).not.toBe(busNames[1]?.[0]);
    for (const [name] of busNames) expect(name).toMatch(/^[A-Za-z0-9._-]{1,256}$/);
  });

  it('admits PutEvents on the bus from this account only', () => {
    const stack = newStack();
    new Triggers(stack, 'Triggers', { startRunFunction: inlineFunction(stack) });
    const policies = Object.values(Template.fromStack(stack).findResources('AWS::Events::EventBusPolicy'));
    const statements = policies.map((policy) => policy.Properties.Statement);
    expect(statements).toEqual(
      expect.arrayContaining([
        expect.objectContaining({
          Effect: 'Deny',
          Principal: { AWS: '*' },
          Action: 'events:PutEvents',
          Condition: { StringNotEquals: { 'aws:PrincipalAccount': { Ref: 'AWS::AccountId' } } },
        }),
        expect.objectContaining({
          Effect: 'Allow',
          Principal: { AWS: expect.anything() },
          Action: 'events:PutEvents',
        }),
      ]),
    );
    expect(statements).toHaveLength(2);
  });
});

describe('RunTable', () => {
  it('refuses deletion protection on a table the stack may delete', () => {
    expect(
      () =>
        new RunTable(newStack(), 'Table', { removalPolicy: RemovalPolicy.DESTROY, deletionProtection: true }),
    ).toThrow(/deletionProtection true contradicts removalPolicy DESTROY/);
  });

  it('deletes the table with the stack when asked to', () => {
    const stack = newStack();
    new RunTable(stack, 'Table', { removalPolicy: RemovalPolicy.DESTROY });
    Template.fromStack(stack).hasResource('AWS::DynamoDB::Table', {
      DeletionPolicy: 'Delete',
      Properties: Match.objectLike({ DeletionProtectionEnabled: false }),
    });
  });
});

describe('WorkflowRuntime', () => {
  it.each([
    [
      { modelProvider: 'bedrock', anthropicApiKeySecret: 'secret' },
      /anthropicApiKeySecret is set but modelProvider is 'bedrock'/,
    ],
    [{ modelProvider: 'openai' }, /modelProvider 'openai' is unknown; use 'anthropic' or 'bedrock'/],
    [
      { bedrockModelArns: ['arn:aws:bedrock:*::foundation-model/x'] },
      /bedrockModelArns is set but modelProvider is 'anthropic'/,
    ],
    [
      { credentialSecretPrefix: 'wf prefix/' },
      /credentialSecretPrefix 'wf prefix\/' is not a secret-name prefix/,
    ],
    [
      { approvalBaseUrl: 'http://approvals.example.com' },
      /approvalBaseUrl 'http:\/\/approvals.example.com' must be an https URL/,
    ],
  ])('rejects %o', (props, message) => {
    const stack = newStack();
    const resolved = { ...props } as Record<string, unknown>;
    if (resolved.anthropicApiKeySecret === 'secret') {
      resolved.anthropicApiKeySecret = secretsmanager.Secret.fromSecretNameV2(stack, 'Key', 'anthropic');
    }
    expect(() => new WorkflowRuntime(stack, 'Runtime', resolved as WorkflowRuntimeProps)).toThrow(message);
  });

  it('uses a given Anthropic key secret instead of creating one', () => {
    const stack = newStack();
    const secret = secretsmanager.Secret.fromSecretNameV2(stack, 'Key', 'team/anthropic');
    const runtime = new WorkflowRuntime(stack, 'Runtime', { anthropicApiKeySecret: secret });
    expect(runtime.anthropicApiKeySecret).toBe(secret);
    const created = Template.fromStack(stack).findResources('AWS::SecretsManager::Secret', {
      Properties: { SecretString: ANTHROPIC_API_KEY_PLACEHOLDER },
    });
    expect(created).toEqual({});
  });

  it('deletes the table and every log group with the stack under RemovalPolicy.DESTROY', () => {
    const stack = newStack();
    new WorkflowRuntime(stack, 'Runtime', { removalPolicy: RemovalPolicy.DESTROY });
    const template = Template.fromStack(stack);
    const policies = ['AWS::DynamoDB::Table', 'AWS::Logs::LogGroup'].flatMap((type) =>
      Object.values(template.findResources(type)).map((resource) => resource.DeletionPolicy),
    );
    expect(policies.length).toBeGreaterThan(10);
    expect(new Set(policies)).toEqual(new Set(['Delete']));
  });

  it('removalPolicy changes what docs/deploy.md says it does: the table, the log groups and the audit key', () => {
    const kept = (removalPolicy?: RemovalPolicy) => {
      const stack = newStack();
      new WorkflowRuntime(stack, 'Runtime', removalPolicy === undefined ? {} : { removalPolicy });
      return Object.entries(
        Template.fromStack(stack).toJSON().Resources as Record<
          string,
          { Type: string; DeletionPolicy?: string }
        >,
      );
    };
    const destroyed = new Map(kept(RemovalPolicy.DESTROY).map(([id, each]) => [id, each.DeletionPolicy]));
    const changed = kept().filter(([id, each]) => each.DeletionPolicy !== destroyed.get(id));
    expect(new Set(changed.map(([, each]) => each.Type))).toEqual(
      new Set(['AWS::DynamoDB::Table', 'AWS::Logs::LogGroup', 'AWS::KMS::Key']),
    );
    const doc = readFileSync(new URL('../../docs/deploy.md', import.meta.url), 'utf8');
    expect(doc).toContain(
      '| `removalPolicy` | `retain` or `destroy` (table, log groups and the audit signing key) |',
    );
  });

  it('stays free of cdk-nag findings when embedded in another stack with custom props', () => {
    const app = fastApp();
    const stack = new Stack(app, 'Embedding');
    new WorkflowRuntime(stack, 'Runtime', {
      approvers: [{ email: 'ops@example.com', owners: ['team-a'] }],
      eventBusName: 'team-events',
      credentialSecretPrefix: 'team/',
      removalPolicy: RemovalPolicy.DESTROY,
    });
    expect(nagFindings(app)).toEqual([]);
  });
});

describe('settingsFromContext', () => {
  it('reads the stack name and runtime props from context', () => {
    const app = fastApp();
    app.node.setContext('stackName', 'Team');
    app.node.setContext('modelProvider', 'bedrock');
    app.node.setContext('approvers', '{"team-a": ["a@example.com", "B@example.com"], "*": "b@example.com"}');
    app.node.setContext('removalPolicy', 'destroy');
    const settings = settingsFromContext(app.node);
    expect(settings).toMatchObject({
      stackName: 'Team',
      runtime: {
        modelProvider: 'bedrock',
        approvers: [
          { email: 'a@example.com', owners: ['team-a'] },
          // Every owner ('*') covers team-a's declaration too.
          { email: 'b@example.com', owners: ['*'] },
        ],
        removalPolicy: RemovalPolicy.DESTROY,
      },
    });
  });

  it.each([
    ['modelProvider', 'openai', /context modelProvider 'openai' is unknown/],
    ['removalPolicy', 'snapshot', /context removalPolicy 'snapshot' is unknown/],
    ['apiAuth', 'cognito', /context apiAuth 'cognito' is unknown/],
    // The comma list of earlier versions declared approvers for every owner: refused with the upgrade step.
    [
      'approvers',
      'a@example.com, b@example.com',
      /context approvers must map owner ids to approver emails.*per owner/,
    ],
  ])('rejects %s=%s', (key, value, message) => {
    const app = fastApp();
    app.node.setContext(key, value);
    expect(() => settingsFromContext(app.node)).toThrow(message);
  });
  it('reads ownerNotices as JSON text (the -c form) mapping owners to one or more addresses', () => {
    const app = fastApp();
    app.node.setContext(
      'ownerNotices',
      '{"123456789012:role:ci":"ops@example.com","team-b":["a@example.com","b@example.com"]}',
    );

    expect(settingsFromContext(app.node).runtime.ownerNotices).toEqual([
      { owner: '123456789012:role:ci', email: 'ops@example.com' },
      { owner: 'team-b', email: 'a@example.com' },
      { owner: 'team-b', email: 'b@example.com' },
    ]);
  });

  it.each(['not json', '["ops@example.com"]', '{"team-b": 42}'])(
    'refuses ownerNotices %s, showing the form',
    (value) => {
      const app = fastApp();
      app.node.setContext('ownerNotices', value);

      expect(() => settingsFromContext(app.node)).toThrow(
        /context ownerNotices must map owner ids to email addresses/,
      );
    },
  );
});
