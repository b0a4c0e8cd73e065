import { readFileSync } from 'node:fs';
import { Annotations, Match } from 'aws-cdk-lib/assertions';
import { beforeAll, describe, expect, it } from 'vitest';
import { APPROVER_MESSAGE_ATTRIBUTE } from '../../infra/constructs/approval-notices.ts';
import { COMMON_ENV, ENV } from '../../infra/constructs/env-names.ts';
import { HANDLER_NAMES, type HandlerName } from '../../infra/constructs/state-names.ts';
import { ANTHROPIC_API_KEY_PLACEHOLDER } from '../../infra/constructs/workflow-runtime.ts';
import { gatewayPath, WORKFLOW_WRITE_ROUTES } from '../../shared/api/workflow-write-routes.ts';
import { createTableInput, TABLE_KEYS } from '../../shared/store/table.ts';
import {
  flatTemplate,
  flattenIntrinsics,
  logicalId,
  nagFindings,
  type SynthesizedRuntime,
  synthRuntime,
} from './synth.ts';

const COMMON = [...Object.values(COMMON_ENV), ENV.tableName];
/** The environment contract: exactly these variables per function. */
const EXPECTED_ENV: Record<HandlerName, string[]> = {
  turn: [
    ...COMMON,
    ENV.modelProvider,
    ENV.credentialSecretPrefix,
    ENV.credentialRoleArn,
    ENV.anthropicSecretArn,
    ENV.approvalBaseUrl,
    ENV.internalHosts,
    // V8's young generation and old space, and glibc's malloc, held small (docs/deploy.md, "Turn memory").
    'NODE_OPTIONS',
    'MALLOC_ARENA_MAX',
    'MALLOC_MMAP_THRESHOLD_',
    'MALLOC_TRIM_THRESHOLD_',
  ],
  'request-approval': [
    ...COMMON,
    ENV.signingSecretArn,
    ENV.approvalTopicArn,
    ENV.approvalBaseUrl,
    ENV.ownerTopicArn,
    ENV.apiUrl,
  ],
  expire: [...COMMON, ENV.ownerTopicArn, ENV.apiUrl],
  deliver: [
    ...COMMON,
    ENV.credentialSecretPrefix,
    ENV.approvalBaseUrl,
    ENV.auditSigningKeyArn,
    ENV.credentialRoleArn,
    ENV.internalHosts,
    ENV.ownerTopicArn,
    ENV.apiUrl,
  ],
  'mark-failed': [...COMMON, ENV.auditSigningKeyArn, ENV.ownerTopicArn, ENV.apiUrl],
  'approval-http': [...COMMON, ENV.signingSecretArn, ENV.approvalBaseUrl, ENV.internalHosts],
  api: [
    ...COMMON,
    ENV.stateMachineArn,
    ENV.credentialSecretPrefix,
    ENV.apiAuth,
    ENV.eventBusName,
    ENV.eventRulePrefix,
    ENV.scheduleGroupName,
    ENV.schedulerRoleArn,
    ENV.startRunFunctionArn,
    ENV.triggerDeadLetterQueueArn,
    ENV.auditSigningKeyArn,
    ENV.graphStateMachineArn,
    ENV.externalStateMachineArn,
  ],
  // The save-time checks (approvers, engines, credential namespace) and the trigger sync; no run, no event.
  'workflow-write': [
    ...COMMON,
    ENV.credentialSecretPrefix,
    ENV.apiAuth,
    ENV.eventBusName,
    ENV.eventRulePrefix,
    ENV.scheduleGroupName,
    ENV.schedulerRoleArn,
    ENV.startRunFunctionArn,
    ENV.triggerDeadLetterQueueArn,
    ENV.auditSigningKeyArn,
    ENV.externalEngines,
  ],
  // The graph and external machines' ARNs: the pending-runs step describes API, schedule and event starts of
  // every kind.
  // Both anchor the heads of the runs they end, and sign the owner's heads after (AuditSigningKey).
  'jobs-sweep': [
    ...COMMON,
    ENV.stateMachineArn,
    ENV.graphStateMachineArn,
    ENV.externalStateMachineArn,
    ENV.auditSigningKeyArn,
  ],
  mcp: [...COMMON, ENV.stateMachineArn, ENV.apiAuth, ENV.auditSigningKeyArn],
  'start-run': [...COMMON, ENV.stateMachineArn, ENV.graphStateMachineArn, ENV.externalStateMachineArn],
  'graph-advance': [...COMMON],
  'graph-service': [
    ...COMMON,
    ENV.internalHosts,
    ENV.credentialSecretPrefix,
    ENV.credentialRoleArn,
    ENV.approvalBaseUrl,
  ],
  'graph-wait': [...COMMON, ENV.stateMachineArn, ENV.externalStateMachineArn],
  // Human tasks: signed links out through the approval topic, to subscribed approvers only.
  'human-task': [...COMMON, ENV.signingSecretArn, ENV.approvalTopicArn, ENV.approvalBaseUrl],
  external: [
    ...COMMON,
    ENV.externalEngines,
    ENV.credentialSecretPrefix,
    ENV.credentialRoleArn,
    ENV.approvalBaseUrl,
    ENV.auditSigningKeyArn,
    ENV.ownerTopicArn,
    ENV.apiUrl,
  ],
};

let synthesized: SynthesizedRuntime;
const fnId = (handler: HandlerName) => logicalId(synthesized.stack.runtime.functions[handler].function);
const roleId = (handler: HandlerName) => logicalId(synthesized.stack.runtime.functions[handler].role);
/** All policy statements attached to a role, intrinsics flattened to `${Id}` strings. */
const statementsOf = (role: string) =>
  Object.values(flatTemplate(synthesized.template).findResources('AWS::IAM::Policy'))
    .filter((policy) => (policy.Properties.Roles as string[]).includes(`\${${role}}`))
    .flatMap((policy) => policy.Properties.PolicyDocument.Statement as Array<Record<string, unknown>>);

beforeAll(() => {
  synthesized = synthRuntime({
    approvers: [
      { email: 'Alice@Example.com', owners: ['team-b'] },
      { email: 'bob@example.com', owners: ['*'] },
    ],
    ownerNotices: [
      { owner: '123456789012:role:ci', email: 'ops@example.com' },
      { owner: 'team-b', email: 'Ops@Example.com' },
      { owner: 'team-b', email: 'lead@example.com' },
    ],
  });
});

describe('WorkflowRuntime functions', () => {
  it('creates one function per handler', () => {
    synthesized.template.resourceCountIs('AWS::Lambda::Function', HANDLER_NAMES.length);
  });

  it.each(HANDLER_NAMES)(
    'runs %s on Node.js 22+ arm64 with active tracing, its own log group and ESM',
    (handler) => {
      const fn = synthesized.template.findResources('AWS::Lambda::Function')[fnId(handler)];
      expect(fn?.Properties).toMatchObject({
        Architectures: ['arm64'],
        TracingConfig: { Mode: 'Active' },
        Handler: 'index.handler',
        LoggingConfig: { LogGroup: { Ref: expect.stringMatching(/LogGroup/) } },
      });
      expect(Number(/^nodejs(\d+)\.x$/.exec(fn?.Properties.Runtime)?.[1])).toBeGreaterThanOrEqual(22);
    },
  );

  it.each(HANDLER_NAMES)('gives %s exactly its environment variables', (handler) => {
    const fn = synthesized.template.findResources('AWS::Lambda::Function')[fnId(handler)];
    const variables = fn?.Properties.Environment.Variables as Record<string, unknown>;
    expect(Object.keys(variables).sort()).toEqual([...EXPECTED_ENV[handler]].sort());
    // No NODE_OPTIONS=--enable-source-maps: Node would read and parse the source map on every cold start.
    // Turn's NODE_OPTIONS only holds its V8 heap sizes (next test).
    expect(String(variables.NODE_OPTIONS ?? '')).not.toContain('--enable-source-maps');
    expect(variables).toMatchObject({
      [COMMON_ENV.powertoolsServiceName]: 'wf-runtime',
      [COMMON_ENV.powertoolsLogLevel]: 'INFO',
      // A stack not named WfRuntime gets a namespace of its own (infra/constructs/deployment-names.ts).
      [COMMON_ENV.powertoolsMetricsNamespace]: 'WfRuntime/WfTest',
      // The Tracer is bundled only with traceAwsCalls (shared/runtime/tracing.ts).
      [COMMON_ENV.tracing]: 'invocations',
    });
  });

  it('keeps function logs one month', () => {
    const groups = Object.values(synthesized.template.findResources('AWS::Logs::LogGroup'));
    expect(groups.length).toBeGreaterThanOrEqual(HANDLER_NAMES.length);
    for (const group of groups) expect(group.Properties.RetentionInDays).toBe(30);
  });

  it('gives the Turn function room for a 10-minute model call, at the measured 165 MB', () => {
    synthesized.template.hasResourceProperties('AWS::Lambda::Function', {
      Description: Match.stringLikeRegexp('model turn'),
      Timeout: 900,
      MemorySize: 165,
    });
  });

  it("holds the Turn function's V8 heap and glibc's malloc to the measured settings (docs/deploy.md, Turn memory)", () => {
    synthesized.template.hasResourceProperties('AWS::Lambda::Function', {
      Description: Match.stringLikeRegexp('model turn'),
      MemorySize: 165,
      Environment: {
        Variables: Match.objectLike({
          NODE_OPTIONS: '--max-semi-space-size=1 --max-old-space-size=64',
          MALLOC_ARENA_MAX: '1',
          MALLOC_MMAP_THRESHOLD_: '131072',
          MALLOC_TRIM_THRESHOLD_: '131072',
        }),
      },
    });
    const others = Object.values(synthesized.template.findResources('AWS::Lambda::Function')).filter(
      (fn) => !String(fn.Properties.Description ?? '').includes('model turn'),
    );
    for (const fn of others) {
      const variables = fn.Properties.Environment?.Variables ?? {};
      expect(variables.NODE_OPTIONS).toBeUndefined();
      expect(Object.keys(variables).filter((name) => name.startsWith('MALLOC_'))).toEqual([]);
    }
  });

  it('attaches no managed policy to any role', () => {
    for (const role of Object.values(synthesized.template.findResources('AWS::IAM::Role'))) {
      expect(role.Properties.ManagedPolicyArns).toBeUndefined();
    }
  });
});

describe('RunTable', () => {
  it('matches TABLE_KEYS: keys, attributes and the two GSIs', () => {
    const expected = createTableInput('unused');
    const [table] = Object.values(synthesized.template.findResources('AWS::DynamoDB::Table'));
    expect(table?.Properties.KeySchema).toEqual(expected.KeySchema);
    expect(table?.Properties.AttributeDefinitions).toEqual(
      expect.arrayContaining(expected.AttributeDefinitions),
    );
    expect(table?.Properties.AttributeDefinitions).toHaveLength(expected.AttributeDefinitions.length);
    expect(table?.Properties.GlobalSecondaryIndexes).toEqual(expected.GlobalSecondaryIndexes);
  });

  it('is on-demand with PITR, TTL, AWS-managed encryption, retained and deletion-protected', () => {
    synthesized.template.hasResource('AWS::DynamoDB::Table', {
      DeletionPolicy: 'Retain',
      UpdateReplacePolicy: 'Retain',
      Properties: Match.objectLike({
        BillingMode: 'PAY_PER_REQUEST',
        PointInTimeRecoverySpecification: { PointInTimeRecoveryEnabled: true },
        TimeToLiveSpecification: { AttributeName: TABLE_KEYS.ttlAttribute, Enabled: true },
        SSESpecification: { SSEEnabled: true },
        DeletionProtectionEnabled: true,
      }),
    });
  });
});

describe('RuntimeApi', () => {
  it('is an HTTP API with IAM auth on /v1 and /mcp and none on /approvals and /human-tasks', () => {
    synthesized.template.resourceCountIs('AWS::ApiGatewayV2::Api', 1);
    synthesized.template.hasResourceProperties('AWS::ApiGatewayV2::Api', { ProtocolType: 'HTTP' });
    synthesized.template.hasResourceProperties('AWS::ApiGatewayV2::Route', {
      RouteKey: 'ANY /v1/{proxy+}',
      AuthorizationType: 'AWS_IAM',
    });
    synthesized.template.hasResourceProperties('AWS::ApiGatewayV2::Route', {
      RouteKey: 'ANY /mcp',
      AuthorizationType: 'AWS_IAM',
    });
    synthesized.template.hasResourceProperties('AWS::ApiGatewayV2::Route', {
      RouteKey: 'ANY /approvals/{proxy+}',
      AuthorizationType: 'NONE',
    });
    synthesized.template.hasResourceProperties('AWS::ApiGatewayV2::Route', {
      RouteKey: 'ANY /human-tasks/{proxy+}',
      AuthorizationType: 'NONE',
    });
    for (const route of WORKFLOW_WRITE_ROUTES) {
      synthesized.template.hasResourceProperties('AWS::ApiGatewayV2::Route', {
        RouteKey: `${route.method} ${gatewayPath(route.path)}`,
        AuthorizationType: 'AWS_IAM',
      });
    }
    synthesized.template.resourceCountIs('AWS::ApiGatewayV2::Route', 4 + WORKFLOW_WRITE_ROUTES.length);
  });

  it.each([
    ['/v1/{proxy+}', 'api'],
    ...WORKFLOW_WRITE_ROUTES.map((route) => [gatewayPath(route.path), 'workflow-write'] as const),
    ['/mcp', 'mcp'],
    ['/approvals/{proxy+}', 'approval-http'],
    ['/human-tasks/{proxy+}', 'approval-http'],
  ] as const)('routes %s to the %s function', (path, handler) => {
    synthesized.template.hasResourceProperties('AWS::Lambda::Permission', {
      Principal: 'apigateway.amazonaws.com',
      FunctionName: { 'Fn::GetAtt': [fnId(handler), 'Arn'] },
      SourceArn: {
        'Fn::Join': ['', Match.arrayWith([Match.stringLikeRegexp(`${path.replace(/[{}+]/g, '.')}$`)])],
      },
    });
  });

  it('logs access and throttles on the $default stage', () => {
    synthesized.template.hasResourceProperties('AWS::ApiGatewayV2::Stage', {
      StageName: '$default',
      AutoDeploy: true,
      AccessLogSettings: { DestinationArn: Match.anyValue(), Format: Match.stringLikeRegexp('requestId') },
      DefaultRouteSettings: { ThrottlingRateLimit: 50, ThrottlingBurstLimit: 100 },
    });
  });
});

describe('Triggers', () => {
  it('creates a bus named after the stack and a schedule group', () => {
    synthesized.template.hasResourceProperties('AWS::Events::EventBus', {
      Name: Match.stringLikeRegexp('^WfTest-Runtime-Triggers-'),
    });
    synthesized.template.resourceCountIs('AWS::Scheduler::ScheduleGroup', 1);
  });

  it('lets Scheduler assume its role only for this account and group, to invoke only start-run', () => {
    const role = logicalId(synthesized.stack.runtime.triggers.schedulerRole);
    synthesized.template.hasResourceProperties('AWS::IAM::Role', {
      AssumeRolePolicyDocument: {
        Statement: [
          Match.objectLike({
            Principal: { Service: 'scheduler.amazonaws.com' },
            Condition: Match.objectLike({ StringEquals: { 'aws:SourceAccount': { Ref: 'AWS::AccountId' } } }),
          }),
        ],
      },
    });
    // Invoking start-run, and sending what it could not deliver to the trigger dead-letter queue.
    const statements = statementsOf(role);
    expect(statements).toHaveLength(2);
    const [invoke, deadLetters] = statements;
    expect(invoke?.Action).toBe('lambda:InvokeFunction');
    for (const resource of (invoke?.Resource ?? []) as string[]) {
      expect(resource.startsWith(`\${${fnId('start-run')}.Arn}`)).toBe(true);
      expect(resource).not.toContain('*');
    }
    const queue = logicalId(synthesized.stack.runtime.triggers.deadLetters.queue);
    expect(deadLetters?.Resource).toBe(`\${${queue}.Arn}`);
  });

  it('lets EventBridge rules with the runtime prefix on the bus invoke start-run', () => {
    synthesized.template.hasResourceProperties('AWS::Lambda::Permission', {
      Principal: 'events.amazonaws.com',
      FunctionName: { 'Fn::GetAtt': [fnId('start-run'), 'Arn'] },
      SourceArn: { 'Fn::Join': ['', Match.arrayWith([':rule/', '/wf-*'])] },
    });
  });

  it('lets the workflow-write function manage schedules and rules, and start, stop or answer nothing', () => {
    const actions = statementsOf(roleId('workflow-write')).flatMap(
      (statement) => [statement.Action].flat() as string[],
    );
    expect(actions).toEqual(
      expect.arrayContaining(['scheduler:CreateSchedule', 'events:PutRule', 'events:PutTargets', 'kms:Sign']),
    );
    expect(actions.filter((action) => /^(states|sns|secretsmanager|lambda):/.test(action))).toEqual([]);
    expect(actions).not.toContain('events:PutEvents');
  });

  it('lets the mcp function start and stop runs (submit, cancel), sign the heads it anchors, and nothing of the schedules or rules', () => {
    const actions = statementsOf(roleId('mcp')).flatMap((statement) => [statement.Action].flat() as string[]);
    expect(actions).toEqual(expect.arrayContaining(['states:StartExecution', 'states:StopExecution']));
    expect(actions.filter((action) => /^(scheduler|events|iam|kms):/.test(action))).toEqual(['kms:Sign']);
  });

  it('lets the api function manage schedules in the group, pass only the Scheduler role, and manage prefixed rules', () => {
    const statements = statementsOf(roleId('api'));
    const actions = (statement: Record<string, unknown>) => [statement.Action].flat() as string[];
    const find = (action: string) => statements.filter((statement) => actions(statement).includes(action));
    for (const action of [
      'scheduler:CreateSchedule',
      'scheduler:UpdateSchedule',
      'scheduler:DeleteSchedule',
    ]) {
      expect(find(action).map((statement) => statement.Resource)).toEqual([
        expect.stringMatching(/:schedule\/WfTest-Runtime-Triggers-ScheduleGroup-[0-9A-F]+\/\*$/),
      ]);
    }
    expect(find('iam:PassRole').map((statement) => statement.Resource)).toEqual([
      `\${${logicalId(synthesized.stack.runtime.triggers.schedulerRole)}.Arn}`,
    ]);
    for (const action of [
      'events:PutRule',
      'events:DeleteRule',
      'events:RemoveTargets',
      'events:PutTargets',
    ]) {
      expect(find(action).map((statement) => statement.Resource)).toEqual([
        expect.stringMatching(/:rule\/\$\{.+\}\/wf-\*$/),
      ]);
    }
    expect(find('events:PutEvents').map((statement) => statement.Resource)).toEqual([
      `\${${logicalId(synthesized.stack.runtime.triggers.eventBus)}.Arn}`,
    ]);
    expect(find('events:PutTargets')[0]?.Condition).toEqual({
      'ForAllValues:ArnEquals': {
        'events:TargetArn': [
          `\${${fnId('start-run')}.Arn}`,
          `\${${logicalId(synthesized.stack.runtime.triggers.deadLetters.queue)}.Arn}`,
        ],
      },
      Null: { 'events:TargetArn': 'false' },
    });
    // Nothing reads schedules or rules back.
    expect(find('scheduler:GetSchedule')).toEqual([]);
    expect(find('scheduler:ListSchedules')).toEqual([]);
    expect(find('events:DescribeRule')).toEqual([]);
  });
});

describe('approvals', () => {
  it('encrypts the approval topic with the AWS managed SNS key and denies non-TLS publishing', () => {
    flatTemplate(synthesized.template).hasResourceProperties('AWS::SNS::Topic', {
      KmsMasterKeyId: Match.stringLikeRegexp(':alias/aws/sns$'),
    });
    synthesized.template.hasResourceProperties('AWS::SNS::TopicPolicy', {
      PolicyDocument: {
        Statement: Match.arrayWith([
          Match.objectLike({ Effect: 'Deny', Condition: { Bool: { 'aws:SecureTransport': 'false' } } }),
        ]),
      },
    });
  });

  it.each(['alice@example.com', 'bob@example.com'])(
    'subscribes %s by email, filtered to notices for them',
    (email) => {
      synthesized.template.hasResourceProperties('AWS::SNS::Subscription', {
        Protocol: 'email',
        Endpoint: email,
        FilterPolicy: { [APPROVER_MESSAGE_ATTRIBUTE]: [email] },
      });
    },
  );

  it('composes the signing keyring {"current":{"kid":"k1","secret":…}} from a generated 64-character seed', () => {
    const { seed, secret } = synthesized.stack.runtime.signingKey;
    synthesized.template.hasResourceProperties('AWS::SecretsManager::Secret', {
      GenerateSecretString: { PasswordLength: 64, ExcludePunctuation: true },
    });
    const keyring = synthesized.template.findResources('AWS::SecretsManager::Secret')[logicalId(secret)];
    const composed = flattenIntrinsics(keyring?.Properties.SecretString) as string;
    const reference = `{{resolve:secretsmanager:\${${logicalId(seed)}}:SecretString:::}}`;
    expect(JSON.parse(composed)).toEqual({ current: { kid: 'k1', secret: reference } });
  });

  it('lets request-approval publish, and both approval functions read the keyring and answer the waits of both machines', () => {
    const runtime = synthesized.stack.runtime;
    const signing = `\${${logicalId(runtime.signingKey.secret)}}`;
    const requestApproval = statementsOf(roleId('request-approval'));
    // Its publish statement also names the owner-notices topic (undeliverable approvals).
    expect(requestApproval).toContainEqual({
      Action: 'sns:Publish',
      Effect: 'Allow',
      Resource: expect.arrayContaining([`\${${logicalId(runtime.approvalNotices.topic)}}`]),
    });
    for (const handler of ['request-approval', 'approval-http'] as const) {
      const statements = statementsOf(roleId(handler));
      expect(statements).toContainEqual(expect.objectContaining({ Resource: signing }));
      // A turn's approval wait (run machine) and a gated service step's (graph machine), and nothing else.
      const answered = statements
        .filter((statement) => [statement.Action].flat().includes('states:SendTaskSuccess'))
        .flatMap((statement) => [statement.Resource].flat());
      expect(answered.sort()).toEqual(
        [
          `\${${logicalId(runtime.runStateMachine.stateMachine)}}`,
          `\${${logicalId(runtime.graphStateMachine.stateMachine)}}`,
        ].sort(),
      );
      expect(JSON.stringify(statements)).not.toContain('states:SendTaskFailure');
    }
  });

  it('lets no function read the keyring seed', () => {
    const seed = `\${${logicalId(synthesized.stack.runtime.signingKey.seed)}}`;
    for (const handler of HANDLER_NAMES) {
      expect(JSON.stringify(statementsOf(roleId(handler)))).not.toContain(seed);
    }
  });
});

describe('model access', () => {
  it('creates the Anthropic key secret with a placeholder and lets only Turn read it', () => {
    synthesized.template.hasResourceProperties('AWS::SecretsManager::Secret', {
      SecretString: ANTHROPIC_API_KEY_PLACEHOLDER,
    });
    const secret = `\${${logicalId(synthesized.stack.runtime.anthropicApiKeySecret!)}}`;
    const readers = HANDLER_NAMES.filter((handler) =>
      statementsOf(roleId(handler)).some((statement) => [statement.Resource].flat().includes(secret)),
    );
    expect(readers).toEqual(['turn']);
  });

  it('with Bedrock, grants Turn InvokeModel on Anthropic models and creates no key secret', () => {
    const bedrock = synthRuntime({ modelProvider: 'bedrock' });
    bedrock.template.hasResourceProperties('AWS::IAM::Policy', {
      PolicyDocument: {
        Statement: Match.arrayWith([
          Match.objectLike({
            Action: ['bedrock:InvokeModel', 'bedrock:InvokeModelWithResponseStream'],
            // The inference-profile ARN in this account, and the models in any region (global profiles'
            // model ARNs have an empty region, which the wildcard matches too).
            Resource: Match.arrayWith([
              {
                'Fn::Join': [
                  '',
                  Match.arrayWith([Match.stringLikeRegexp(':inference-profile/\\*\\.anthropic\\.\\*$')]),
                ],
              },
              {
                'Fn::Join': [
                  '',
                  Match.arrayWith([
                    Match.stringLikeRegexp('^:bedrock:\\*::foundation-model/anthropic\\.\\*$'),
                  ]),
                ],
              },
            ]),
          }),
        ]),
      },
    });
    expect(
      bedrock.template.findResources('AWS::SecretsManager::Secret', {
        Properties: { SecretString: ANTHROPIC_API_KEY_PLACEHOLDER },
      }),
    ).toEqual({});
    expect(bedrock.stack.runtime.anthropicApiKeySecret).toBeUndefined();
  });
});

describe('cdk-nag and synthesis', () => {
  it('leaves no AwsSolutions finding unacknowledged', () => {
    expect(nagFindings(synthesized.app)).toEqual([]);
  });

  it('leaves no AwsSolutions finding with Bedrock and a JWT authorizer either', async () => {
    const { ApiAuth } = await import('../../infra/constructs/runtime-api.ts');
    const variant = synthRuntime(
      {
        modelProvider: 'bedrock',
        apiAuth: ApiAuth.jwt({ issuer: 'https://issuer.example.com', audience: ['client'] }),
      },
      { env: { account: '123456789012', region: 'eu-west-1' } },
    );
    expect(nagFindings(variant.app)).toEqual([]);
  });

  it("docs/deploy.md's table of what gets deployed counts what the stack holds", () => {
    const deployDoc = readFileSync(new URL('../../docs/deploy.md', import.meta.url), 'utf8');
    const table = deployDoc.slice(
      deployDoc.indexOf('What gets deployed:'),
      deployDoc.indexOf('## Prerequisites'),
    );
    const count = (type: string) => Object.keys(synthesized.template.findResources(type)).length;
    const words = ['zero', 'one', 'two', 'three', 'four'];
    expect(table).toContain(`| code | sixteen Lambda functions`);
    expect(count('AWS::Lambda::Function')).toBe(16);
    expect(table).toContain(`| runs | ${words[count('AWS::StepFunctions::StateMachine')]} Step Functions`);
    expect(table).toContain(`${words[count('AWS::Events::Rule')]} rules on the default event bus`);
    // The triggers' and the execution-ended rules' dead-letter queues; the approval and owner-notice topics.
    expect(count('AWS::SQS::Queue')).toBe(2);
    expect(table.match(/dead-letter queue/g)).toHaveLength(2);
    expect(count('AWS::SNS::Topic')).toBe(2);
    expect(table).toContain('SNS topic for approval links and one for owner notices');
    expect(count('AWS::KMS::Key')).toBe(1);
    expect(table).toContain('| audit | a KMS key');
    for (const route of ['/v1/*', '/mcp', '/approvals/*', '/human-tasks/*'])
      expect(table).toContain(`\`${route}\``);
  });

  it('synthesizes without error annotations', () => {
    expect(Annotations.fromStack(synthesized.stack).findError('*', Match.anyValue())).toEqual([]);
  });

  it('has alarms for failed and timed-out executions of the three state machines, Turn errors and throttles, approval errors, API 5xx, dead letters, egress denials, expired approvals, budget stops, deferred cancel anchors, undecided pending starts and signing faults, and a dashboard', () => {
    const names = Object.values(synthesized.template.findResources('AWS::CloudWatch::Alarm')).map(
      (alarm) => alarm.Properties.MetricName,
    );
    expect(names.sort()).toEqual([
      '5xx',
      'ApprovalsExpired',
      'ApproximateNumberOfMessagesVisible',
      'ApproximateNumberOfMessagesVisible',
      'BudgetStops',
      'CancelAnchorsDeferred',
      'EgressDenials',
      'Errors',
      'Errors',
      'ExecutionsFailed',
      'ExecutionsFailed',
      'ExecutionsFailed',
      'ExecutionsTimedOut',
      'ExecutionsTimedOut',
      'ExecutionsTimedOut',
      'PendingRunsUndecided',
      'Throttles',
      'WorkflowSigningFaults',
    ]);
    synthesized.template.resourceCountIs('AWS::CloudWatch::Dashboard', 1);
    // docs/deploy.md counts them (what is deployed, and what CloudWatch bills).
    const deployDoc = readFileSync(new URL('../../docs/deploy.md', import.meta.url), 'utf8');
    expect(names).toHaveLength(18);
    expect(deployDoc).toContain('eighteen CloudWatch alarms and one dashboard');
    expect(deployDoc).toContain('eighteen alarms, one dashboard');
  });

  // The sweep counts each undecided run once a minute: 5 in 5 minutes is a run no sweep of the window decided.
  it('alarms on 5 undecided pending starts in 5 minutes, not on one failed describe', () => {
    synthesized.template.hasResourceProperties('AWS::CloudWatch::Alarm', {
      MetricName: 'PendingRunsUndecided',
      Statistic: 'Sum',
      Period: 300,
      EvaluationPeriods: 1,
      Threshold: 5,
      ComparisonOperator: 'GreaterThanOrEqualToThreshold',
    });
  });

  it('outputs the API URL, table, state machine, bus, topic and secrets', () => {
    const outputs = Object.keys(synthesized.template.findOutputs('*'));
    expect(outputs).toEqual(
      expect.arrayContaining([
        'ApiUrl',
        'ApprovalBaseUrl',
        'TableName',
        'StateMachineArn',
        'EventBusName',
        'ApprovalTopicArn',
        'OwnerTopicArn',
        'SigningSecretArn',
        'AnthropicApiKeySecretArn',
      ]),
    );
  });
});

describe('WorkflowRuntime: internalHosts', () => {
  it('gives the functions that gate or show actions the operator list, comma-separated', () => {
    // Act
    const synthesized = synthRuntime({ internalHosts: ['billing.internal.example.com', 'crm.corp'] });
    const functions = synthesized.template.findResources('AWS::Lambda::Function');

    // Assess
    const values = Object.values(functions)
      .map((fn) => fn.Properties.Environment.Variables[ENV.internalHosts])
      .filter((value) => value !== undefined);
    expect(values).toEqual(Array(4).fill('billing.internal.example.com,crm.corp'));
  });

  it.each(['https://billing.example.com', '*.corp', 'host:8443', 'a/b'])(
    'refuses %j: exact host names only',
    (host) => {
      expect(() => synthRuntime({ internalHosts: [host] })).toThrow(
        /internalHosts entry .* is not a host name/,
      );
    },
  );
});

describe('owner notices', () => {
  const ownerTopic = () => `\${${logicalId(synthesized.stack.runtime.ownerNotices.topic)}}`;

  it('is a second topic, encrypted with the AWS managed SNS key, its policy denying non-TLS publishing', () => {
    const topics = flatTemplate(synthesized.template).findResources('AWS::SNS::Topic');
    const topic = topics[logicalId(synthesized.stack.runtime.ownerNotices.topic)];
    expect(Object.keys(topics)).toHaveLength(2);
    expect(topic?.Properties.KmsMasterKeyId).toMatch(/:alias\/aws\/sns$/);
    const policies = Object.values(flatTemplate(synthesized.template).findResources('AWS::SNS::TopicPolicy'));
    const mine = policies.find((policy) => (policy.Properties.Topics as string[]).includes(ownerTopic()));
    expect(mine?.Properties.PolicyDocument.Statement).toContainEqual(
      expect.objectContaining({ Effect: 'Deny', Condition: { Bool: { 'aws:SecureTransport': 'false' } } }),
    );
  });

  it('subscribes each address once, filtered on the owner attribute to the owners listed for it', () => {
    const subscriptions = Object.values(
      flatTemplate(synthesized.template).findResources('AWS::SNS::Subscription'),
    ).filter((sub) => sub.Properties.TopicArn === ownerTopic());
    const byEndpoint = Object.fromEntries(
      subscriptions.map((sub) => [sub.Properties.Endpoint, sub.Properties.FilterPolicy]),
    );
    expect(byEndpoint).toEqual({
      'ops@example.com': { owner: ['123456789012:role:ci', 'team-b'] },
      'lead@example.com': { owner: ['team-b'] },
    });
    for (const sub of subscriptions) expect(sub.Properties.Protocol).toBe('email');
  });

  it('lets exactly the run-ending handlers (external included) and request-approval publish to it', () => {
    const publishes = (handler: HandlerName) =>
      statementsOf(roleId(handler)).some(
        (statement) =>
          statement.Action === 'sns:Publish' && [statement.Resource].flat().includes(ownerTopic()),
      );
    const granted = HANDLER_NAMES.filter(publishes);
    expect(granted.sort()).toEqual(['deliver', 'expire', 'external', 'mark-failed', 'request-approval']);
  });

  it('tells those functions the topic and the API URL, and bundles the subscribed approvers into four', () => {
    const functions = flatTemplate(synthesized.template).findResources('AWS::Lambda::Function');
    const env = (handler: HandlerName) =>
      functions[fnId(handler)]?.Properties.Environment.Variables as Record<string, unknown>;
    for (const handler of ['deliver', 'expire', 'external', 'mark-failed', 'request-approval'] as const) {
      expect(env(handler)[ENV.ownerTopicArn]).toBe(ownerTopic());
      expect(String(env(handler)[ENV.apiUrl])).toMatch(/HttpApi.*ApiEndpoint/);
    }
    // The approvers are compiled into the four functions that check them, never in an environment.
    const declared = '{"alice@example.com":["team-b"],"bob@example.com":["*"]}';
    const bundled = (handler: HandlerName) =>
      synthesized.stack.runtime.functions[handler].bundledConstants[ENV.approverOwners];
    expect(HANDLER_NAMES.filter((handler) => bundled(handler) === declared).sort()).toEqual([
      'api',
      'human-task',
      'request-approval',
      'workflow-write',
    ]);
    expect(HANDLER_NAMES.filter((handler) => bundled(handler) !== undefined)).toHaveLength(4);
    for (const handler of HANDLER_NAMES) expect(env(handler)[ENV.approverOwners]).toBeUndefined();
  });
});
