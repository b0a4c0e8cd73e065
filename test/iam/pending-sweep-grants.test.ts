/**
 * The grants behind settling API, schedule and event starts left pending (shared/runs/pending-sweep.ts), evaluated
 * with iam-simulate on the synthesized template. The jobs sweep may `states:DescribeExecution` an execution of
 * the run, graph and external machines (a run so started may be any of the three kinds) and of no other machine; DescribeExecution is
 * authorized on the execution resource
 * `arn:<partition>:states:<region>:<account>:execution:<state machine name>:<execution name>`
 * (https://docs.aws.amazon.com/service-authorization/latest/reference/list_awsstepfunctions.html,
 * https://docs.aws.amazon.com/step-functions/latest/apireference/API_DescribeExecution.html). The functions whose
 * commits move a run out of `pending` may delete its marker: TransactWriteItems is authorized as each of its parts
 * (https://docs.aws.amazon.com/amazondynamodb/latest/developerguide/transaction-apis-iam.html), a Delete as
 * DeleteItem, in the marker's partition. Start-run puts the marker of a schedule's or an event's run in its
 * creation's transaction (a Put as PutItem, in the marker's partition) and deletes none.
 */
import { beforeAll, describe, expect, it } from 'vitest';
import type { HandlerName } from '../../infra/constructs/state-names.ts';
import { keys } from '../../shared/store/keys.ts';
import { logicalId } from '../infra/synth.ts';
import { StackPolicies } from './policies.ts';
import { decide } from './simulate.ts';
import { synthForIam } from './stack.ts';
import { ACCOUNT } from './template.ts';

let policies: StackPolicies;
let executionOf: { run: string; graph: string; external: string };
let table: string;

beforeAll(() => {
  const synth = synthForIam();
  policies = new StackPolicies(synth);
  const runtime = synth.stack.runtime;
  const execution = (machine: Parameters<typeof logicalId>[0], name: string) =>
    `${policies.resolved.ref(logicalId(machine)).replace(':stateMachine:', ':execution:')}:${name}`;
  executionOf = {
    run: execution(runtime.runStateMachine.stateMachine, 'run_0123456789abcdef'),
    graph: execution(runtime.graphStateMachine.stateMachine, 'run_0123456789abcdef'),
    external: execution(runtime.externalStateMachine.stateMachine, 'run_0123456789abcdef'),
  };
  table = policies.resolved.getAtt(logicalId(runtime.table.table), 'Arn');
});

const decideFor = (
  fn: HandlerName,
  action: string,
  resource: string,
  context?: Record<string, string | string[]>,
) => {
  const identity = policies.functionIdentity(fn);
  return decide({
    principal: `arn:aws:sts::${ACCOUNT}:assumed-role/${identity.roleArn.split('/').at(-1)}/${fn}`,
    action,
    resource,
    ...(context ? { context } : {}),
    identityPolicies: identity.policies,
  });
};

describe('Settling API, schedule and event starts left pending: the grants', () => {
  it('lets the jobs sweep describe an execution of each machine such a run may run on', async () => {
    for (const execution of Object.values(executionOf))
      expect(await decideFor('jobs-sweep', 'states:DescribeExecution', execution)).toBe('Allowed');
  });

  it('lets the jobs sweep describe no execution of another state machine', async () => {
    const other = executionOf.run.replace(/:execution:[^:]+:/, ':execution:someone-else:');
    expect(await decideFor('jobs-sweep', 'states:DescribeExecution', other)).toBe('ImplicitlyDenied');
  });

  it.each(['turn', 'graph-advance', 'external', 'mark-failed', 'api', 'jobs-sweep'] as const)(
    'lets %s delete a pending-run marker in the commit that moves a run out of pending',
    async (fn) => {
      // DeleteItem is scoped to partitions (dynamodb:LeadingKeys, delete-partitions.test.ts): the marker's.
      const marker = keys.pendingRun('2026-12-03T10:15:00.000Z', 'run_0123456789abcdef').pk;
      expect(await decideFor(fn, 'dynamodb:DeleteItem', table, { 'dynamodb:LeadingKeys': [marker] })).toBe(
        'Allowed',
      );
    },
  );

  it('lets start-run put the marker of a run it creates, and delete none', async () => {
    const marker = { 'dynamodb:LeadingKeys': [keys.pendingRun('2026-12-03T10:15:00.000Z', 'run_0123').pk] };
    expect(await decideFor('start-run', 'dynamodb:PutItem', table, marker)).toBe('Allowed');
    expect(await decideFor('start-run', 'dynamodb:DeleteItem', table, marker)).toBe('ImplicitlyDenied');
  });
});
