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
  // Lambda retries a failed asynchronous invocation twice by default, a minute and then two later
  // (https://docs.aws.amazon.com/lambda/latest/dg/invocation-async-error-handling.html): a retried sweep would
  // overlap the next scheduled one, which does the same work.
  it('is not retried by Lambda when an asynchronous invocation fails', () => {
    const sweep = logicalId(synthesized.stack.runtime.functions['jobs-sweep'].function);
    const configs = Object.values(
      synthesized.template.findResources('AWS::Lambda::EventInvokeConfig'),
    ).filter((each) => JSON.stringify(each.Properties.FunctionName) === JSON.stringify({ Ref: sweep }));
    expect(configs).toHaveLength(1);
    expect(configs[0]?.Properties).toMatchObject({ MaximumRetryAttempts: 0, Qualifier: '$LATEST' });
    expect(configs[0]?.Properties.DestinationConfig).toBeUndefined();
  });

  it("leaves the schedule target's own delivery unretried, and the run-ended target's retried twice", () => {
    const { jobsSweep } = synthesized.stack.runtime;
    const rules = synthesized.template.findResources('AWS::Events::Rule');
    const schedule = rules[logicalId(jobsSweep.rule)]?.Properties.Targets[0];
    const runEnded = rules[logicalId(jobsSweep.runEndedRule!)]?.Properties.Targets[0];
    expect(schedule.RetryPolicy).toEqual({ MaximumRetryAttempts: 0 });
    expect(runEnded.RetryPolicy).toEqual({ MaximumRetryAttempts: 2 });
  });

  it("times out at 30 s, ending before the next minute's sweep, with 20 s beyond the sweep's margin (docs/jobs.md)", () => {
    const sweep = logicalId(synthesized.stack.runtime.functions['jobs-sweep'].function);
    const fn = synthesized.template.findResources('AWS::Lambda::Function')[sweep];
    expect(fn?.Properties.Timeout).toBe(30);
    expect(fn!.Properties.Timeout * 1000 - SWEEP_TIME_MARGIN_MS).toBe(20_000);
  });
});
