/**
 * Who may ask whether a run's first execution exists, evaluated with iam-simulate on the synthesized template: the
 * api (an API start without an Idempotency-Key whose StartExecution may have happened: shared/runs/start-run.ts)
 * may `states:DescribeExecution` an execution of the run, graph and external machines (it starts runs on all
 * three); start-run, whose starts always carry an idempotency marker, may describe none (a retried trigger
 * starts its pending run again; the jobs sweep describes one left pending: pending-sweep-grants.test.ts).
 * DescribeExecution is
 * authorized on the execution resource
 * `arn:<partition>:states:<region>:<account>:execution:<state machine name>:<execution name>`
 * (https://docs.aws.amazon.com/service-authorization/latest/reference/list_awsstepfunctions.html,
 * https://docs.aws.amazon.com/step-functions/latest/apireference/API_DescribeExecution.html).
 */
import { beforeAll, describe, expect, it } from 'vitest';
import type { HandlerName } from '../../infra/constructs/state-names.ts';
import { logicalId } from '../infra/synth.ts';
import { StackPolicies } from './policies.ts';
import { decide } from './simulate.ts';
import { synthForIam } from './stack.ts';
import { ACCOUNT } from './template.ts';

let policies: StackPolicies;
let executionOf: { run: string; graph: string; external: string };

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
});

const describes = (fn: HandlerName, resource: string) => {
  const identity = policies.functionIdentity(fn);
  return decide({
    principal: `arn:aws:sts::${ACCOUNT}:assumed-role/${identity.roleArn.split('/').at(-1)}/${fn}`,
    action: 'states:DescribeExecution',
    resource,
    identityPolicies: identity.policies,
  });
};

describe("Asking whether a run's first execution exists: who may", () => {
  it('the api may describe an execution of each machine it starts runs on', async () => {
    for (const execution of Object.values(executionOf))
      expect(await describes('api', execution)).toBe('Allowed');
  });

  it('the api may not describe an execution of another state machine', async () => {
    const other = executionOf.run.replace(/:execution:[^:]+:/, ':execution:someone-else:');
    expect(await describes('api', other)).toBe('ImplicitlyDenied');
  });

  it('start-run may describe none (a retry finds its run by its idempotency marker; the sweep asks)', async () => {
    for (const execution of Object.values(executionOf))
      expect(await describes('start-run', execution)).toBe('ImplicitlyDenied');
  });
});
