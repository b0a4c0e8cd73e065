/**
 * Who may stop a graph's agent child runs, evaluated with iam-simulate on the synthesized template: mark-failed
 * (a failed graph's children, shared/graph-run/end-children.ts, an agent step's whose wait timed out included)
 * may `states:StopExecution` an execution of the run state machine, and no execution of the graph or external
 * machine; graph-advance, which only records a step's failure, may stop none. StopExecution is authorized on the execution resource
 * `arn:<partition>:states:<region>:<account>:execution:<state machine name>:<execution name>`
 * (https://docs.aws.amazon.com/service-authorization/latest/reference/list_awsstepfunctions.html,
 * https://docs.aws.amazon.com/step-functions/latest/apireference/API_StopExecution.html). mark-failed's grant is
 * in a policy of its own (it is a task of the run machine: a grant in its role's default policy would make the
 * machine depend on itself).
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
    run: execution(
      runtime.runStateMachine.stateMachine,
      'run_0123456789abcdef-c500-0123456789abcdef0123456789abcdef',
    ),
    graph: execution(runtime.graphStateMachine.stateMachine, 'run_0123456789abcdef'),
    external: execution(runtime.externalStateMachine.stateMachine, 'run_0123456789abcdef'),
  };
});

const stops = (fn: HandlerName, resource: string) => {
  const identity = policies.functionIdentity(fn);
  return decide({
    principal: `arn:aws:sts::${ACCOUNT}:assumed-role/${identity.roleArn.split('/').at(-1)}/${fn}`,
    action: 'states:StopExecution',
    resource,
    identityPolicies: identity.policies,
  });
};

describe("Stopping a graph's agent child runs: who may", () => {
  it('mark-failed may stop a run-machine execution', async () => {
    expect(await stops('mark-failed', executionOf.run)).toBe('Allowed');
  });

  it('mark-failed may not stop a graph or external execution', async () => {
    expect(await stops('mark-failed', executionOf.graph)).toBe('ImplicitlyDenied');
    expect(await stops('mark-failed', executionOf.external)).toBe('ImplicitlyDenied');
  });

  it('graph-advance may stop no execution (ending a child run needs writes, anchors and a signer it lacks)', async () => {
    for (const execution of Object.values(executionOf))
      expect(await stops('graph-advance', execution)).toBe('ImplicitlyDenied');
  });

  it("mark-failed's grant is a policy of its own, not its role's default policy (no dependency cycle)", () => {
    const identity = policies.functionIdentity('mark-failed');
    const granting = identity.policies.filter(({ policy }) =>
      policy.Statement.some((statement) => [statement.Action].flat().includes('states:StopExecution')),
    );
    expect(granting.map(({ name }) => name)).toEqual([expect.stringMatching(/ChildRunStop/)]);
  });
});
