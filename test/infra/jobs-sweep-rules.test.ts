/**
 * Prompt job promotion on AWS: besides the one-minute schedule, a rule on the default bus sends the sweep
 * function every ended execution of the run state machine (Step Functions' status-change event), so a job
 * waiting for a slot starts when the slot frees, not at the next sweep. The rule is scoped to the run machine
 * and to ending statuses, and only events.amazonaws.com for that rule may invoke the function through it.
 */
import { beforeAll, describe, expect, it } from 'vitest';
import { ENDED_EXECUTION_STATUSES, EXECUTION_STATUS_CHANGE } from '../../infra/constructs/jobs-sweep.ts';
import { SWEEP_TIME_MARGIN_MS } from '../../shared/jobs/index.ts';
import { defaultRuntime, logicalId, type SynthesizedRuntime } from './synth.ts';

let synthesized: SynthesizedRuntime;
beforeAll(() => {
  synthesized = defaultRuntime();
});

describe('JobsSweep: the run-ended rule', () => {
  it('matches ended executions of the run state machine only, and targets the sweep function', () => {
    const { runtime } = synthesized.stack;
    const machine = logicalId(runtime.runStateMachine.stateMachine);
    const sweep = logicalId(runtime.functions['jobs-sweep'].function);
    const rule = logicalId(runtime.jobsSweep.runEndedRule!);
    const resource = synthesized.template.findResources('AWS::Events::Rule')[rule];
    expect(resource?.Properties.EventPattern).toEqual({
      source: ['aws.states'],
      'detail-type': [EXECUTION_STATUS_CHANGE],
      detail: { stateMachineArn: [{ Ref: machine }], status: [...ENDED_EXECUTION_STATUSES] },
    });
    expect(resource?.Properties.Targets).toHaveLength(1);
    expect(resource?.Properties.Targets[0].Arn).toEqual({ 'Fn::GetAtt': [sweep, 'Arn'] });
    expect(resource?.Properties.ScheduleExpression).toBeUndefined();
  });

  it('lets only this rule invoke the sweep function through EventBridge', () => {
    const { runtime } = synthesized.stack;
    const rule = logicalId(runtime.jobsSweep.runEndedRule!);
    synthesized.template.hasResourceProperties('AWS::Lambda::Permission', {
      Action: 'lambda:InvokeFunction',
      Principal: 'events.amazonaws.com',
      SourceArn: { 'Fn::GetAtt': [rule, 'Arn'] },
    });
  });

  it('keeps the one-minute schedule as the safety net (event delivery is best effort)', () => {
    const schedule = logicalId(synthesized.stack.runtime.jobsSweep.rule);
    const resource = synthesized.template.findResources('AWS::Events::Rule')[schedule];
    expect(resource?.Properties.ScheduleExpression).toBe('rate(1 minute)');
  });
});

describe('JobsSweep: the sweep function', () => {
  it("times out at 30 s, ending before the next minute's sweep, with 20 s beyond the sweep's margin (docs/jobs.md)", () => {
    const sweep = logicalId(synthesized.stack.runtime.functions['jobs-sweep'].function);
    const fn = synthesized.template.findResources('AWS::Lambda::Function')[sweep];
    expect(fn?.Properties.Timeout).toBe(30);
    expect(fn!.Properties.Timeout * 1000 - SWEEP_TIME_MARGIN_MS).toBe(20_000);
  });
});
