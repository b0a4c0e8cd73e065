/**
 * Two deployments in one account and Region: the default stack (`WfRuntime`: credentials under `wf/`, metrics
 * in `WfRuntime`) and a second one (`WfTeamB`: derived `wf-WfTeamB/` and `WfRuntime/WfTeamB`,
 * infra/constructs/deployment-names.ts). Each stack's Turn reads an owner's credential the way it does on AWS
 * (its composition, shared/runtime/aws/owner-secrets.ts, under the function's synthesized environment, against
 * the loopback AWS stand-in), and the recorded calls are simulated with both stacks' policies: each reads its
 * own stack's secret of that owner, and neither its reader session nor its Turn role reaches the other stack's.
 * Turn's metrics carry its stack's namespace, the one that stack's alarms read.
 */
import { readFileSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Template } from 'aws-cdk-lib/assertions';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { DEFAULT_STACK_NAME } from '../../infra/constructs/deployment-names.ts';
import { COMMON_ENV, ENV } from '../../infra/constructs/env-names.ts';
import { WorkflowRuntimeStack } from '../../infra/workflow-runtime-stack.ts';
import { OWNER_TAG_KEY, ownerKey } from '../../shared/credentials/owner-key.ts';
import type { AwsCallRecord } from '../../shared/runtime/aws-call-recorder.ts';
import { fastApp } from '../infra/synth.ts';
import { type FakeAws, startFakeAws } from './fake-aws.ts';
import { OWNER } from './flow.ts';
import { lambdas } from './lambdas.ts';
import { StackPolicies } from './policies.ts';
import { type IamRequest, iamRequestsFor } from './requests.ts';
import { decide } from './simulate.ts';
import { REGION } from './stack.ts';
import { ACCOUNT } from './template.ts';

const SECOND_STACK = 'WfTeamB';
const own = ownerKey(OWNER);

/** What one stack's Turn did and emitted. */
type Deployment = {
  name: string;
  policies: StackPolicies;
  secret: string;
  readerArn: string;
  requests: IamRequest[];
  value: string;
  namespaces: string[];
};

let fake: FakeAws;
let dir: string;
const deployments: Record<'default' | 'second', Deployment> = {} as never;

/** Reads the owner's `github` secret with `policies`' Turn, and emits a BudgetStops metric; records both. */
async function driveTurn(name: string, policies: StackPolicies): Promise<Deployment> {
  const turn = policies.functionIdentity('turn');
  const prefix = turn.environment[ENV.credentialSecretPrefix]!;
  const secret = `${prefix}${own}/github`;
  fake.secrets.set(secret, `token-of-${name}`);
  const callLog = join(dir, `${name}.jsonl`);
  const fns = lambdas(policies, { dynamodb: 'http://127.0.0.1:9', aws: fake.url, anthropic: '', callLog });
  const emitted: string[] = [];
  const write = vi.spyOn(process.stdout, 'write').mockImplementation((chunk) => {
    emitted.push(String(chunk));
    return true;
  });
  let value: string;
  try {
    value = await fns.within('turn', async () => {
      const { ownerSecrets } = await import('../../shared/runtime/aws/owner-secrets.ts');
      const { createTelemetry, recordPoints } = await import('../../shared/runtime/telemetry.ts');
      const read = await ownerSecrets().resolve({ owner: OWNER, secret });
      // Turn's telemetry as in Lambda: Powertools writes the metrics as EMF lines on stdout.
      const { metrics } = createTelemetry();
      recordPoints(metrics, [{ name: 'BudgetStops', value: 1 }]);
      metrics?.publishStoredMetrics();
      return read;
    });
  } finally {
    write.mockRestore();
    fns.restore();
  }
  const calls = readFileSync(callLog, 'utf8')
    .split('\n')
    .filter((line) => line !== '')
    .map((line) => JSON.parse(line) as AwsCallRecord);
  const requests = calls.flatMap((call) =>
    iamRequestsFor(call, {
      region: REGION,
      stateMachineArn: '',
      // Operators create credential secrets named and tagged for their owner (docs/deploy.md, Credentials).
      secretTags: new Map([[secret, { [OWNER_TAG_KEY]: own }]]),
    }),
  );
  const namespaces = emitted
    .flatMap((line) => line.split('\n'))
    .filter((line) => line.includes('"_aws"'))
    .flatMap(
      (line) =>
        (JSON.parse(line) as { _aws: { CloudWatchMetrics: { Namespace: string }[] } })._aws.CloudWatchMetrics,
    )
    .map((each) => each.Namespace);
  return {
    name,
    policies,
    secret,
    readerArn: turn.environment[ENV.credentialRoleArn]!,
    requests,
    value,
    namespaces,
  };
}

beforeAll(async () => {
  const app = fastApp();
  const env = { account: ACCOUNT, region: REGION };
  // Both stacks exist before the first synthesis; neither sets its names (derived from the stack name).
  const stacks = [
    new WorkflowRuntimeStack(app, DEFAULT_STACK_NAME, { env }),
    new WorkflowRuntimeStack(app, SECOND_STACK, { env }),
  ];
  const [first, second] = stacks.map(
    (stack) => new StackPolicies({ app, stack, template: Template.fromStack(stack) }, {}, stack.stackName),
  ) as [StackPolicies, StackPolicies];
  fake = await startFakeAws();
  dir = await mkdtemp(join(tmpdir(), 'wf-iam-stacks-'));
  deployments.default = await driveTurn(DEFAULT_STACK_NAME, first);
  deployments.second = await driveTurn(SECOND_STACK, second);
}, 120_000);

afterAll(async () => {
  await fake?.close();
  if (dir) await rm(dir, { recursive: true, force: true });
});

/** The read recorded for `d`, made with its reader role's session tagged for the owner. */
const readOf = (d: Deployment) => {
  const read = d.requests.find((r) => r.session && r.action === 'secretsmanager:GetSecretValue');
  if (!read?.session) throw new Error(`${d.name}: no credential read was recorded`);
  return { ...read, session: read.session };
};

/** The decision for the reader session of `as` reading `secretArn` (tagged for the same owner). */
async function readDecision(as: Deployment, secretArn: string) {
  const read = readOf(as);
  return decide({
    principal: `arn:aws:sts::${ACCOUNT}:assumed-role/${read.session.roleArn.split('/').at(-1)}/turn`,
    action: 'secretsmanager:GetSecretValue',
    resource: secretArn,
    context: {
      ...read.context,
      ...Object.fromEntries(
        Object.entries(read.session.tags).map(([key, value]) => [`aws:PrincipalTag/${key}`, value]),
      ),
    },
    identityPolicies: as.policies.roleIdentity(read.session.roleArn),
  });
}

/** The decision for `as`'s Turn role assuming the reader role `readerArn` of `of` (its trust policy). */
async function assumeDecision(as: Deployment, of: Deployment) {
  const assume = as.requests.find((r) => r.action === 'sts:AssumeRole');
  if (!assume) throw new Error(`${as.name}: no AssumeRole was recorded`);
  const turnRole = as.policies.functionIdentity('turn').roleArn.split('/').at(-1);
  return decide({
    principal: `arn:aws:sts::${ACCOUNT}:assumed-role/${turnRole}/turn`,
    action: 'sts:AssumeRole',
    resource: of.readerArn,
    context: assume.context,
    identityPolicies: as.policies.functionIdentity('turn').policies,
    resourcePolicy: of.policies.resourcePolicyFor(of.readerArn),
  });
}

describe('IAM simulation of a second stack in the account', () => {
  it("derives the second stack's names and reads its own secret under them", () => {
    const { default: first, second } = deployments;
    expect(first.secret).toBe(`wf/${own}/github`);
    expect(second.secret).toBe(`wf-${SECOND_STACK}/${own}/github`);
    expect([first.value, second.value]).toEqual([
      `token-of-${DEFAULT_STACK_NAME}`,
      `token-of-${SECOND_STACK}`,
    ]);
    expect(first.readerArn).not.toBe(second.readerArn);
    // Recorded: Turn assumed its own stack's reader role, the read was signed with that session.
    for (const d of [first, second]) {
      expect(d.requests.find((r) => r.action === 'sts:AssumeRole')?.resource).toBe(d.readerArn);
      expect(readOf(d).session.roleArn).toBe(d.readerArn);
    }
  });

  it.each([
    ['second', 'default'],
    ['default', 'second'],
  ] as const)("lets the %s stack's reader read its own secret and not the %s stack's", async (me, other) => {
    const [mine, theirs] = [deployments[me], deployments[other]];
    expect(await readDecision(mine, readOf(mine).resource)).toBe('Allowed');
    // The same owner's secret of the same name in the other stack's namespace: denied.
    expect(await readDecision(mine, readOf(theirs).resource)).toBe('ImplicitlyDenied');
  });

  it.each([
    ['second', 'default'],
    ['default', 'second'],
  ] as const)(
    "lets the %s stack's Turn assume its own reader role and not the %s stack's",
    async (me, other) => {
      const [mine, theirs] = [deployments[me], deployments[other]];
      expect(await assumeDecision(mine, mine)).toBe('Allowed');
      expect(await assumeDecision(mine, theirs)).not.toBe('Allowed');
    },
  );

  it("puts each stack's metrics in its own namespace, the one its alarms read", () => {
    const expected = { default: 'WfRuntime', second: `WfRuntime/${SECOND_STACK}` };
    for (const key of ['default', 'second'] as const) {
      const d = deployments[key];
      expect(d.policies.functionIdentity('turn').environment[COMMON_ENV.powertoolsMetricsNamespace]).toBe(
        expected[key],
      );
      expect(d.namespaces.length).toBeGreaterThan(0);
      expect(new Set(d.namespaces)).toEqual(new Set([expected[key]]));
      const alarms = d.policies.resolved.resources
        .filter(([, r]) => r.Type === 'AWS::CloudWatch::Alarm' && r.Properties?.MetricName === 'BudgetStops')
        .map(([, r]) => r.Properties?.Namespace);
      expect(alarms).toEqual([expected[key]]);
    }
  });
});
