/**
 * The jobs sweep cancels the run of a job cancelled while the sweep was starting it (shared/jobs/lifecycle.ts,
 * startJobRun → shared/runs/cancel-run.ts), which stops the run's execution. Evaluated with iam-simulate on the
 * synthesized template: the sweep may `states:StopExecution` an execution of the run machine (job runs are
 * agent runs), and none of the graph or external machines. StopExecution is authorized on the execution resource
 * (https://docs.aws.amazon.com/service-authorization/latest/reference/list_awsstepfunctions.html,
 * https://docs.aws.amazon.com/step-functions/latest/apireference/API_StopExecution.html).
 */
import { beforeAll, describe, expect, it } from 'vitest';
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

const stops = (resource: string) => {
  const identity = policies.functionIdentity('jobs-sweep');
  return decide({
    principal: `arn:aws:sts::${ACCOUNT}:assumed-role/${identity.roleArn.split('/').at(-1)}/jobs-sweep`,
    action: 'states:StopExecution',
    resource,
    identityPolicies: identity.policies,
  });
};

describe('The jobs sweep stopping the run of a job cancelled while it was starting', () => {
  it('may stop an execution of the run machine', async () => {
    expect(await stops(executionOf.run)).toBe('Allowed');
  });

  it('may stop no graph or external execution', async () => {
    expect(await stops(executionOf.graph)).toBe('ImplicitlyDenied');
    expect(await stops(executionOf.external)).toBe('ImplicitlyDenied');
  });
});
