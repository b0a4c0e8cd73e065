/**
 * The graph state machine's serialized shape (docs/state-machine.md, "The graph machine"): the states of the
 * contract, the Step Functions semantics it relies on (Inline Map concurrency, callback waits with a
 * `TimeoutSecondsPath` whose States.Timeout is caught, never retried), Retry/Catch rules checked offline
 * (infra/asl-rules.ts), and the local runner's view of the same definition.
 */
import { beforeAll, describe, expect, it } from 'vitest';
import { aslProblems } from '../../infra/asl-rules.ts';
import { GRAPH_HANDLER_BY_STATE, GRAPH_NEXT, GRAPH_STATE_NAMES } from '../../infra/constructs/state-names.ts';
import { synthesizeLocalDefinitions } from '../../infra/local-definition.ts';
import { LOCAL_START_TIME, prepareDefinition } from '../../shared/local/sfn/definition.ts';
import { defaultRuntime, flatTemplate, logicalId, type SynthesizedRuntime } from './synth.ts';

type State = Record<string, unknown> & { Type: string };
type Machine = { States: Record<string, State>; StartAt: string };

let synthesized: SynthesizedRuntime;
let definition: Machine;
let top: Record<string, State>;
let item: Record<string, State>;

beforeAll(() => {
  synthesized = defaultRuntime();
  const machines = flatTemplate(synthesized.template).findResources('AWS::StepFunctions::StateMachine');
  const machine = machines[logicalId(synthesized.stack.runtime.graphStateMachine.stateMachine)];
  definition = JSON.parse(machine?.Properties.DefinitionString as string) as Machine;
  top = definition.States;
  item = (top[GRAPH_STATE_NAMES.runSteps]!.ItemProcessor as Machine).States;
});

describe('GraphStateMachine', () => {
  it('is a Standard state machine with tracing and ERROR logging without execution data', () => {
    const machines = synthesized.template.findResources('AWS::StepFunctions::StateMachine');
    const graph = machines[logicalId(synthesized.stack.runtime.graphStateMachine.stateMachine)];
    expect(graph?.Properties).toMatchObject({
      StateMachineType: 'STANDARD',
      TracingConfiguration: { Enabled: true },
      LoggingConfiguration: { Level: 'ERROR', IncludeExecutionData: false },
    });
  });

  it('has exactly the states of the contract, starting at Advance', () => {
    const names = [...Object.keys(top), ...Object.keys(item), 'UnknownStepType'];
    expect(definition.StartAt).toBe(GRAPH_STATE_NAMES.advance);
    expect(new Set(names)).toEqual(new Set([...Object.values(GRAPH_STATE_NAMES), 'UnknownStepType']));
  });

  it('breaks no Retry/Catch rule of the States Language (asl-rules.ts), nested Map included', () => {
    expect(aslProblems(definition)).toEqual([]);
  });

  it('routes every value of $.next; failed, a missing or an unknown one to MarkGraphFailed', () => {
    const route = top[GRAPH_STATE_NAMES.route] as State & { Choices: { Next: string }[]; Default: string };
    const targets = route.Choices.map((choice) => choice.Next);
    expect(targets[0]).toBe(GRAPH_STATE_NAMES.markFailed);
    expect(route.Default).toBe(GRAPH_STATE_NAMES.markFailed);
    const serialized = JSON.stringify(route.Choices);
    // `approval` is answered inside the Map only (ServiceWaits); at the top it is unknown → MarkGraphFailed.
    for (const next of Object.values(GRAPH_NEXT).filter(
      (value) => value !== 'failed' && value !== 'approval',
    ))
      expect(serialized).toContain(`"${next}"`);
    expect(serialized).not.toContain('"approval"');
  });

  it('runs ready steps in an Inline Map of at most 10 at once (AWS: at most 40), then Advances again', () => {
    const map = top[GRAPH_STATE_NAMES.runSteps] as State & Record<string, unknown>;
    expect(map).toMatchObject({ Type: 'Map', ItemsPath: '$.steps', MaxConcurrency: 10, Next: 'Advance' });
    expect(map.ResultPath).toBeNull();
    expect(
      (map.ItemProcessor as { ProcessorConfig?: { Mode?: string } }).ProcessorConfig?.Mode ?? 'INLINE',
    ).toBe('INLINE');
  });

  it('retries the tasks that evaluate expressions on InvocationStepsSpentError, in a fresh invocation, with backoff', () => {
    // A decision made again after write conflicts found its invocation's expression steps spent (nothing was
    // recorded, shared/graph/expression-bounds.ts): a fresh invocation has them all. The States Language matches
    // a Lambda function's error by its name (https://docs.aws.amazon.com/step-functions/latest/dg/concepts-error-handling.html).
    const tasks = [
      top[GRAPH_STATE_NAMES.advance],
      top[GRAPH_STATE_NAMES.serviceStep],
      item[GRAPH_STATE_NAMES.serviceTask],
      item[GRAPH_STATE_NAMES.humanTask],
    ];
    for (const task of tasks) {
      const retriers = task?.Retry as { ErrorEquals: string[]; MaxAttempts: number; BackoffRate: number }[];
      const retrier = retriers.find((each) => each.ErrorEquals.includes('InvocationStepsSpentError'));
      expect(retrier).toMatchObject({ MaxAttempts: 6, BackoffRate: 2, JitterStrategy: 'FULL' });
    }
  });

  it('waits for a human task with its own timeout; States.Timeout is caught (→ onTimeout), never retried', () => {
    const human = item[GRAPH_STATE_NAMES.humanTask] as State & Record<string, unknown>;
    expect(human.Resource).toMatch(/lambda:invoke\.waitForTaskToken$/);
    expect(human.TimeoutSecondsPath).toBe('$.timeoutSeconds');
    expect(JSON.stringify(human.Retry)).not.toContain('States.Timeout');
    const catchers = human.Catch as { ErrorEquals: string[]; Next: string }[];
    expect(catchers).toEqual([
      expect.objectContaining({ ErrorEquals: ['States.ALL'], Next: 'RecordStepError' }),
    ]);
    expect(human.Parameters).toMatchObject({ Payload: { 'taskToken.$': '$$.Task.Token' } });
  });

  it('sends a service step that answers `approval` to its approval wait, and nothing else (guarded paths)', () => {
    const task = item[GRAPH_STATE_NAMES.serviceTask] as State & Record<string, unknown>;
    expect(task).toMatchObject({ ResultPath: '$.service', Next: GRAPH_STATE_NAMES.serviceWaits });
    const waits = item[GRAPH_STATE_NAMES.serviceWaits] as State & { Choices: unknown[]; Default: string };
    expect(waits.Default).toBe(GRAPH_STATE_NAMES.serviceTaskEnded);
    expect(waits.Choices).toHaveLength(1);
    const rule = JSON.stringify(waits.Choices[0]);
    // A comparison on a missing path is an uncatchable States.Runtime error: every path is checked first.
    for (const check of [
      '{"Variable":"$.service.next","IsPresent":true}',
      '{"Variable":"$.service.next","StringEquals":"approval"}',
      '{"Variable":"$.service.approvalId","IsPresent":true}',
      '{"Variable":"$.service.timeoutSeconds","IsPresent":true}',
      '{"Variable":"$.service.timeoutSeconds","IsNumeric":true}',
      '{"Variable":"$.service.timeoutSeconds","NumericGreaterThanEquals":1}',
    ])
      expect(rule).toContain(check);
    expect(rule).toContain(`"Next":"${GRAPH_STATE_NAMES.approveServiceStep}"`);
  });

  it("waits on a gated step's approval for what is left of its window, without heartbeats; States.Timeout → Expire → the step again", () => {
    const approve = item[GRAPH_STATE_NAMES.approveServiceStep] as State & Record<string, unknown>;
    expect(approve.Resource).toMatch(/lambda:invoke\.waitForTaskToken$/);
    expect(approve.TimeoutSecondsPath).toBe('$.service.timeoutSeconds');
    expect(approve.HeartbeatSeconds).toBeUndefined();
    expect(approve.HeartbeatSecondsPath).toBeUndefined();
    expect(approve.Parameters).toMatchObject({
      FunctionName: expect.anything(),
      Payload: {
        'runId.$': '$.runId',
        turn: 0,
        'approvalId.$': '$.service.approvalId',
        'approvalTimeoutSeconds.$': '$.service.timeoutSeconds',
        'taskToken.$': '$$.Task.Token',
      },
    });
    expect(approve.ResultPath).toBeNull();
    expect(approve.Next).toBe(GRAPH_STATE_NAMES.serviceTask);
    // The window's end is the approval's expiry (fail closed), never a crash to retry.
    expect(JSON.stringify(approve.Retry)).not.toContain('States.Timeout');
    expect(approve.Catch).toEqual([
      expect.objectContaining({
        ErrorEquals: ['States.Timeout'],
        Next: GRAPH_STATE_NAMES.expireStepApproval,
      }),
      expect.objectContaining({ ErrorEquals: ['States.ALL'], Next: GRAPH_STATE_NAMES.recordStepError }),
    ]);
    const expire = item[GRAPH_STATE_NAMES.expireStepApproval] as State & Record<string, unknown>;
    expect(expire).toMatchObject({
      Parameters: { 'runId.$': '$.runId', turn: 0 },
      Next: GRAPH_STATE_NAMES.serviceTask,
    });
    expect(expire.ResultPath).toBeNull();
  });

  it('starts a child agent run on a callback wait bounded beyond the longest child run (15 days)', () => {
    const agent = item[GRAPH_STATE_NAMES.agentTask] as State & Record<string, unknown>;
    expect(agent.Resource).toMatch(/lambda:invoke\.waitForTaskToken$/);
    expect(agent.TimeoutSeconds).toBe(15 * 24 * 3600);
    expect(agent.Parameters).not.toHaveProperty(['Payload', 'timeoutSeconds.$']);
    expect(agent.Next).toBe(GRAPH_STATE_NAMES.completeStep);
  });

  it("starts a child external run on a callback wait whose TimeoutSecondsPath backstops the child's own deadline", () => {
    const external = item[GRAPH_STATE_NAMES.externalTask] as State & Record<string, unknown>;
    expect(external.Resource).toMatch(/lambda:invoke\.waitForTaskToken$/);
    expect(external.TimeoutSecondsPath).toBe('$.timeoutSeconds');
    expect(JSON.stringify(external.Retry)).not.toContain('States.Timeout');
    expect(external.Catch).toEqual([
      expect.objectContaining({ ErrorEquals: ['States.ALL'], Next: GRAPH_STATE_NAMES.recordStepError }),
    ]);
    expect(external.Next).toBe(GRAPH_STATE_NAMES.completeStep);
    expect(external.Parameters).toMatchObject({ Payload: { 'taskToken.$': '$$.Task.Token' } });
    const byType = item[GRAPH_STATE_NAMES.stepType] as State & {
      Choices: { StringEquals?: string; Next: string }[];
    };
    expect(byType.Choices).toContainEqual(
      expect.objectContaining({ StringEquals: 'external_task', Next: GRAPH_STATE_NAMES.externalTask }),
    );
  });

  it('carries ids and counters only between states (payloads ≤ 256 KB)', () => {
    const service = top[GRAPH_STATE_NAMES.serviceStep] as State & { Parameters: Record<string, unknown> };
    expect(Object.keys(service.Parameters).sort()).toEqual(
      ['attempt.$', 'decide', 'runId.$', 'stepId.$', 'type.$'].sort(),
    );
  });

  it('selects only fields of the context object that AWS documents (the waits’ fences read three of them)', () => {
    // https://docs.aws.amazon.com/step-functions/latest/dg/input-output-contextobject.html: the Execution,
    // State, StateMachine and Task nodes, and a Map iteration's Map.Item.
    const documented = new Set([
      ...['Id', 'Input', 'Name', 'RoleArn', 'StartTime', 'RedriveCount', 'RedriveTime'].map(
        (f) => `Execution.${f}`,
      ),
      ...['EnteredTime', 'Name', 'RetryCount'].map((field) => `State.${field}`),
      'StateMachine.Id',
      'StateMachine.Name',
      'Task.Token',
      'Map.Item.Index',
      'Map.Item.Value',
    ]);
    const machines = flatTemplate(synthesized.template).findResources('AWS::StepFunctions::StateMachine');
    const selected = new Set(
      Object.values(machines).flatMap((machine) =>
        [...String(machine.Properties.DefinitionString).matchAll(/\$\$\.([\w.]+)/g)].map((match) => match[1]),
      ),
    );
    expect([...selected].filter((path) => !documented.has(path!))).toEqual([]);
    expect(selected).toContain('Execution.StartTime');
  });

  it('gives the local runner the execution’s start time in every wait, in the Map too (shared/local/sfn)', () => {
    // Prepare
    const local = synthesizeLocalDefinitions().graph;

    // Act
    const prepared = prepareDefinition(
      local.definition,
      local.functionByState,
      Object.values(local.functionByState),
    ).definition as unknown as Machine;

    // Assess: the library would give each Map iteration its own start time; the local stack's is the execution's.
    const json = JSON.stringify(prepared);
    expect(json).not.toContain('$$.Execution.StartTime');
    const items = (prepared.States[GRAPH_STATE_NAMES.runSteps]!.ItemProcessor as Machine).States;
    const waits = [GRAPH_STATE_NAMES.agentTask, GRAPH_STATE_NAMES.humanTask, GRAPH_STATE_NAMES.externalTask];
    for (const name of waits)
      expect(JSON.stringify(items[name]?.Parameters)).toContain(
        `"startTime.$":"$$.Execution.${LOCAL_START_TIME}"`,
      );
    expect(JSON.stringify(prepared.States[GRAPH_STATE_NAMES.awaitResume]?.Parameters)).toContain(
      `"startTime.$":"$$.Execution.${LOCAL_START_TIME}"`,
    );
  });

  it('is what the local stack runs: every Task state maps to its handler', () => {
    const local = synthesizeLocalDefinitions().graph;
    for (const [state, handler] of Object.entries(GRAPH_HANDLER_BY_STATE))
      expect(local.functionByState[state]).toBe(handler);
    expect(aslProblems(local.definition)).toEqual([]);
  });
});
