/**
 * What keeps a run from staying `running` when its execution ends outside the state machine's own error
 * handling, checked offline on the synthesized stack:
 * - every Lambda task of the three machines retries `Lambda.TooManyRequestsException` with a retrier of its
 *   own whose expected window (full jitter: each wait uniform in [0, delay]) is at least 15 minutes
 *   (https://docs.aws.amazon.com/step-functions/latest/dg/bp-lambda-serviceexception.html,
 *   https://docs.aws.amazon.com/step-functions/latest/dg/concepts-error-handling.html#error-handling-retrying-after-an-error);
 * - every task-token wait is bounded (TimeoutSeconds(Path) or HeartbeatSeconds(Path)): an unbounded one lasts
 *   as long as the execution, up to a year (https://docs.aws.amazon.com/step-functions/latest/dg/sfn-stuck-execution.html);
 * - ContinueAsNew is retried with a deterministic, valid name (API_StartExecution: 1–80 characters; the same name
 *   and input is the same execution);
 * - the execution-ended rules send FAILED / ABORTED / TIMED_OUT executions of the run and graph machines to
 *   mark-failed, and the external machine's to the external function as its AbandonExternal payload.
 */
import { beforeAll, describe, expect, it } from 'vitest';
import { ExternalStepEventSchema } from '../../functions/external.ts';
import { isExecutionName } from '../../shared/runs/execution-name.ts';
import { defaultRuntime, flatTemplate, logicalId, type SynthesizedRuntime } from './synth.ts';

type State = Record<string, unknown> & { Type: string };
type Retrier = {
  ErrorEquals: string[];
  IntervalSeconds?: number;
  MaxAttempts?: number;
  BackoffRate?: number;
  MaxDelaySeconds?: number;
  JitterStrategy?: string;
};
type Machine = { States: Record<string, State> };

let synthesized: SynthesizedRuntime;
let machines: Record<'run' | 'graph' | 'external', Machine>;

beforeAll(() => {
  synthesized = defaultRuntime();
  const { runtime } = synthesized.stack;
  const resources = flatTemplate(synthesized.template).toJSON().Resources as Record<
    string,
    { Properties: { DefinitionString: string } }
  >;
  const definition = (machine: Parameters<typeof logicalId>[0]) =>
    JSON.parse(resources[logicalId(machine)]!.Properties.DefinitionString) as Machine;
  machines = {
    run: definition(runtime.runStateMachine.stateMachine),
    graph: definition(runtime.graphStateMachine.stateMachine),
    external: definition(runtime.externalStateMachine.stateMachine),
  };
});

/** Every state, with those inside Map item processors, by name. */
function allStates(machine: Machine): [string, State][] {
  return Object.entries(machine.States).flatMap(([name, state]) => {
    const inner = (state.ItemProcessor ?? state.Iterator) as Machine | undefined;
    return [[name, state] as [string, State], ...(inner ? allStates(inner) : [])];
  });
}

/** A Lambda task: `lambda:invoke(.waitForTaskToken)`, or a function's ARN itself (payloadResponseOnly). */
const isLambdaTask = (state: State) =>
  state.Type === 'Task' && /:lambda:|Function\w*\.Arn\}/.test(String(state.Resource));

/**
 * The delays a retrier computes (before jitter), as Step Functions documents its fields: the first retry waits
 * IntervalSeconds (default 1), each next one BackoffRate (default 2) times longer, capped by MaxDelaySeconds, for
 * MaxAttempts retries (default 3) (https://docs.aws.amazon.com/step-functions/latest/dg/concepts-error-handling.html).
 */
function delays(retrier: Retrier): number[] {
  const interval = retrier.IntervalSeconds ?? 1;
  const rate = retrier.BackoffRate ?? 2;
  const cap = retrier.MaxDelaySeconds ?? Number.POSITIVE_INFINITY;
  return Array.from({ length: retrier.MaxAttempts ?? 3 }, (_, n) => Math.min(interval * rate ** n, cap));
}

/** The expected total wait: full jitter draws each wait uniformly in [0, delay]. */
const expectedWindow = (retrier: Retrier) =>
  delays(retrier).reduce((sum, delay) => sum + (retrier.JitterStrategy === 'FULL' ? delay / 2 : delay), 0);

const MACHINES = ['run', 'graph', 'external'] as const;

describe('Lambda throttling: a window of its own in every machine', () => {
  it.each(MACHINES)('%s: every Lambda task retries TooManyRequests for ≥ 15 minutes (expected)', (kind) => {
    const tasks = allStates(machines[kind]).filter(([, state]) => isLambdaTask(state));
    expect(tasks.length).toBeGreaterThan(2);
    for (const [name, state] of tasks) {
      const retriers = (state.Retry as Retrier[] | undefined) ?? [];
      // The first retrier that matches the error is the one Step Functions uses.
      const matching = retriers.find(
        (retrier) =>
          retrier.ErrorEquals.includes('Lambda.TooManyRequestsException') ||
          retrier.ErrorEquals.includes('States.ALL'),
      );
      expect(matching?.ErrorEquals, name).toEqual(['Lambda.TooManyRequestsException']);
      expect(matching?.JitterStrategy, name).toBe('FULL');
      expect(expectedWindow(matching!), name).toBeGreaterThanOrEqual(15 * 60);
    }
  });

  it("the run machine's throttle window is the one LAMBDA_THROTTLE_RETRY's comment states: 1,806 s of delays, 903 s expected", () => {
    const retrier = (machines.run.States.Turn!.Retry as Retrier[]).find((each) =>
      each.ErrorEquals.includes('Lambda.TooManyRequestsException'),
    )!;
    expect(delays(retrier)).toEqual([2, 4, 8, 16, 32, 64, ...Array<number>(14).fill(120)]);
    expect(delays(retrier).reduce((sum, delay) => sum + delay, 0)).toBe(1806);
    expect(expectedWindow(retrier)).toBe(903);
  });

  it('keeps the other Lambda service faults on their short retrier', () => {
    const turn = machines.run.States.Turn!;
    const service = (turn.Retry as Retrier[]).find((retrier) =>
      retrier.ErrorEquals.includes('Lambda.ServiceException'),
    );
    expect(service).toMatchObject({ MaxAttempts: 6, MaxDelaySeconds: 30 });
    expect(service?.ErrorEquals).not.toContain('Lambda.TooManyRequestsException');
  });
});

describe('task-token waits are bounded', () => {
  it.each(MACHINES)('%s: every .waitForTaskToken task has a timeout or a heartbeat', (kind) => {
    for (const [name, state] of allStates(machines[kind])) {
      if (state.Type !== 'Task' || !String(state.Resource).endsWith('.waitForTaskToken')) continue;
      const bounded = [
        'TimeoutSeconds',
        'TimeoutSecondsPath',
        'HeartbeatSeconds',
        'HeartbeatSecondsPath',
      ].some((field) => field in state);
      expect(bounded, name).toBe(true);
    }
  });

  it("bounds AgentTask by the longest child run (7 days' timeout + 7 days' approval) and AwaitResume", () => {
    const states = Object.fromEntries(allStates(machines.graph));
    expect(states.AgentTask?.TimeoutSeconds).toBeGreaterThanOrEqual(14 * 24 * 3600);
    expect(states.AwaitResume?.TimeoutSeconds).toBe(30 * 24 * 3600);
  });
});

describe('ContinueAsNew', () => {
  const FORMAT = "States.Format('{}-c{}-{}', $.runId, $.turn, States.Hash($$.Execution.Name, 'MD5'))";

  it('names the fresh execution deterministically from this one, and retries the start', () => {
    const state = machines.run.States.ContinueAsNew!;
    expect((state.Parameters as Record<string, unknown>)['Name.$']).toBe(FORMAT);
    expect(state.Retry).toEqual([
      expect.objectContaining({
        ErrorEquals: ['States.TaskFailed', 'States.Timeout'],
        JitterStrategy: 'FULL',
      }),
    ]);
  });

  it('gives a name Step Functions takes for the longest run id and turn', () => {
    // Run ids are `run_` + 32 hex digits (shared/runtime/clock.ts); maxTurns ≤ 200; MD5 is 32 hex digits.
    const name = `run_${'f'.repeat(32)}-c${99_999}-${'0'.repeat(32)}`;
    expect(name.length).toBeLessThanOrEqual(80);
    expect(isExecutionName(name)).toBe(true);
  });
});

describe('ExecutionEnded rules', () => {
  const rule = (construct: Parameters<typeof logicalId>[0]) =>
    synthesized.template.findResources('AWS::Events::Rule')[logicalId(construct)]!.Properties;

  it('sends ended run and graph executions (FAILED, ABORTED, TIMED_OUT) to mark-failed, as they are', () => {
    const { runtime } = synthesized.stack;
    const properties = rule(runtime.executionEnded.runRule);
    expect(properties.EventPattern).toEqual({
      source: ['aws.states'],
      'detail-type': ['Step Functions Execution Status Change'],
      detail: {
        stateMachineArn: [
          { Ref: logicalId(runtime.runStateMachine.stateMachine) },
          { Ref: logicalId(runtime.graphStateMachine.stateMachine) },
        ],
        status: ['FAILED', 'ABORTED', 'TIMED_OUT'],
      },
    });
    expect(properties.Targets).toHaveLength(1);
    expect(properties.Targets[0].Arn).toEqual({
      'Fn::GetAtt': [logicalId(runtime.functions['mark-failed'].function), 'Arn'],
    });
    expect(properties.Targets[0].InputTransformer).toBeUndefined();
  });

  it("sends the external machine's to the external function as the AbandonExternal payload", () => {
    const { runtime } = synthesized.stack;
    const properties = rule(runtime.executionEnded.externalRule);
    expect(properties.EventPattern.detail.stateMachineArn).toEqual([
      { Ref: logicalId(runtime.externalStateMachine.stateMachine) },
    ]);
    const [target] = properties.Targets;
    expect(target.Arn).toEqual({ 'Fn::GetAtt': [logicalId(runtime.functions.external.function), 'Arn'] });

    // EventBridge's transform: each <variable> outside quotes becomes the JSON value at its path
    // (https://docs.aws.amazon.com/eventbridge/latest/APIReference/API_InputTransformer.html).
    const runId = `run_${'a'.repeat(32)}`;
    const event = { detail: { name: runId, status: 'TIMED_OUT' } };
    const { InputPathsMap: paths, InputTemplate: template } = target.InputTransformer as {
      InputPathsMap: Record<string, string>;
      InputTemplate: string;
    };
    const text = template.replace(/<([\w-]+)>/g, (_, variable: string) => {
      const path = paths[variable]!.replace(/^\$\./, '').split('.');
      return JSON.stringify(
        path.reduce<unknown>((value, key) => (value as Record<string, unknown>)[key], event),
      );
    });
    expect(ExternalStepEventSchema.parse(JSON.parse(text))).toEqual({
      runId,
      step: 'abandon',
      state: { error: { Error: 'ExecutionEnded', Cause: 'TIMED_OUT' } },
    });
  });

  it('lets only these rules invoke the two functions through EventBridge', () => {
    const { runtime } = synthesized.stack;
    for (const ended of [runtime.executionEnded.runRule, runtime.executionEnded.externalRule]) {
      synthesized.template.hasResourceProperties('AWS::Lambda::Permission', {
        Action: 'lambda:InvokeFunction',
        Principal: 'events.amazonaws.com',
        SourceArn: { 'Fn::GetAtt': [logicalId(ended), 'Arn'] },
      });
    }
  });
});
