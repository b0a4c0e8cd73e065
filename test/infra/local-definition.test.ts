import { StateMachine } from 'aws-local-stepfunctions';
import { beforeAll, describe, expect, it } from 'vitest';
import { HANDLER_BY_STATE, type HandlerName } from '../../infra/constructs/state-names.ts';
import {
  adaptForAwsLocalStepFunctions,
  type LocalDefinition,
  localFunctionArn,
  synthesizeLocalDefinition,
  synthesizeLocalDefinitions,
} from '../../infra/local-definition.ts';
import { defaultRuntime, flatTemplate, logicalId } from './synth.ts';

type Pointer = { runId: string; turn: number; segmentStartTurn: number };
type Handler = (input: Record<string, unknown>) => Promise<unknown>;

let local: LocalDefinition;
let states: Record<string, Record<string, unknown>>;

/** The `attempt` each Turn was given (the context object's counts), kept apart from its pointer. */
const turnAttempts: unknown[] = [];
/** The execution's input each Turn was given. */
const turnExecutions: unknown[] = [];

/** Runs the local definition in aws-local-stepfunctions with the given state handlers. */
function run(input: Pointer, handlers: Record<string, Handler>) {
  const machine = new StateMachine(adaptForAwsLocalStepFunctions(local.definition) as never);
  const turn = handlers.Turn;
  const wrapped = turn
    ? {
        ...handlers,
        // The execution's input (`$$.Execution.Input`) is kept apart too.
        // So is the state the Turn state was entered with (`$`, checked in test/local/sfn/runs.test.ts).
        Turn: async ({ attempt, execution, state: _state, ...pointer }: Record<string, unknown>) => {
          turnAttempts.push(attempt);
          turnExecutions.push(execution);
          return turn(pointer);
        },
      }
    : handlers;
  return machine.run(input, {
    overrides: { taskResourceLocalHandlers: wrapped as never },
    // The context object the local stack must provide: the definition reads these paths (the local stack
    // resolves State.RetryCount per attempt: shared/local/sfn/retry-counts.ts).
    context: {
      StateMachine: { Id: 'arn:aws:states:local:000000000000:stateMachine:wf' },
      Execution: {
        Id: 'arn:aws:states:local:000000000000:execution:wf:one',
        Name: 'one',
        RedriveCount: 0,
        Input: input,
      },
      State: { RetryCount: 0 },
      Task: { Token: 'token-1' },
    } as never,
  });
}

beforeAll(() => {
  local = synthesizeLocalDefinition();
  states = (local.definition as { States: Record<string, Record<string, unknown>> }).States;
});

describe('synthesizeLocalDefinition', () => {
  it('resolves every CloudFormation intrinsic and token', () => {
    expect(JSON.stringify(local.definition)).not.toMatch(/Fn::|"Ref"|\$\{Token|\$\{AWS::/);
  });

  it('points each Lambda-backed state at a stable fake ARN named after its handler', () => {
    expect(states.Turn?.Resource).toBe(localFunctionArn('turn'));
    expect(states.Expire?.Resource).toBe('arn:aws:lambda:local:000000000000:function:expire');
    expect((states.RequestApproval?.Parameters as Record<string, unknown> | undefined)?.FunctionName).toBe(
      localFunctionArn('request-approval'),
    );
    expect(states.RequestApproval?.Resource).toBe('arn:aws:states:::lambda:invoke.waitForTaskToken');
  });

  it('adapts only the approval timeout path for aws-local-stepfunctions', () => {
    const adapted = adaptForAwsLocalStepFunctions(local.definition) as {
      States: Record<string, Record<string, unknown>>;
    };
    expect(adapted.States.RequestApproval?.TimeoutSecondsPath).toBe('$.Payload.approvalTimeoutSeconds');
    expect({ ...adapted.States, RequestApproval: undefined }).toEqual({
      ...states,
      RequestApproval: undefined,
    });
    expect(states.RequestApproval?.TimeoutSecondsPath).toBe('$.approvalTimeoutSeconds');
  });

  it('bounds every Lambda task by its function timeout plus a minute', () => {
    expect(
      [states.Turn, states.Expire, states.Deliver, states.MarkFailed].map((state) => state?.TimeoutSeconds),
    ).toEqual([960, 90, 120, 90]);
  });

  it('maps each Task state to the handler it calls', () => {
    expect(local.functionByState).toEqual(HANDLER_BY_STATE);
  });

  it('is the deployed definition with only the function ARNs and partition substituted', () => {
    const deployed = defaultRuntime();
    const [machine] = Object.values(
      flatTemplate(deployed.template).findResources('AWS::StepFunctions::StateMachine'),
    );
    let text = machine?.Properties.DefinitionString as string;
    for (const [handler, fn] of Object.entries(deployed.stack.runtime.functions)) {
      text = text.replaceAll(`\${${logicalId(fn.function)}.Arn}`, localFunctionArn(handler as HandlerName));
    }
    text = text.replaceAll(`\${AWS::Partition}`, 'aws');
    expect(JSON.parse(text)).toEqual(local.definition);
  });

  it('synthesizes once per process and hands each caller its own copy', () => {
    const first = synthesizeLocalDefinitions();
    (first.run.definition as { States: Record<string, unknown> }).States.Turn = 'changed by a caller';
    first.graph.functionByState.changed = 'by a caller';
    const second = synthesizeLocalDefinitions();
    expect(second.run).toEqual(local);
    expect(second.graph.functionByState).not.toHaveProperty('changed');
    expect(second.run.definition).not.toBe(first.run.definition);
  });
});

describe('the local definition in aws-local-stepfunctions', () => {
  it('loops Turn until done, then delivers and succeeds with the run pointer', async () => {
    const calls: string[] = [];
    const execution = run(
      { runId: 'run_1', turn: 0, segmentStartTurn: 0 },
      {
        Turn: async (input) => {
          calls.push(`Turn ${JSON.stringify(input)}`);
          const turn = (input.turn as number) + 1;
          return { ...input, turn, next: turn < 2 ? 'continue' : 'done' };
        },
        Deliver: async (input) => {
          calls.push(`Deliver ${JSON.stringify(input)}`);
          return { ignored: true };
        },
      },
    );
    await expect(execution.result).resolves.toEqual({
      runId: 'run_1',
      turn: 2,
      segmentStartTurn: 0,
      next: 'done',
    });
    expect(calls).toEqual([
      'Turn {"runId":"run_1","turn":0,"segmentStartTurn":0}',
      'Turn {"runId":"run_1","turn":1,"segmentStartTurn":0}',
      'Deliver {"runId":"run_1","turn":2,"segmentStartTurn":0}',
    ]);
    expect(turnAttempts.slice(-2)).toEqual(
      Array(2).fill({
        retryCount: 0,
        redriveCount: 0,
        executionId: 'arn:aws:states:local:000000000000:execution:wf:one',
      }),
    );
    // Each Turn gets the input its execution was started with (`$$.Execution.Input`).
    expect(turnExecutions.slice(-2)).toEqual(Array(2).fill({ runId: 'run_1', turn: 0, segmentStartTurn: 0 }));
  });

  it('expires an approval nobody decides in time and goes back to Turn', async () => {
    const calls: string[] = [];
    let turns = 0;
    const execution = run(
      { runId: 'run_2', turn: 0, segmentStartTurn: 0 },
      {
        Turn: async (input) => {
          turns += 1;
          calls.push('Turn');
          return turns === 1
            ? { ...input, turn: 1, next: 'await_approval', approvalTimeoutSeconds: 1 }
            : { ...input, next: 'done' };
        },
        RequestApproval: async (input) => {
          // The execution's start time is the library's clock: only its shape is asserted.
          const payload = JSON.stringify((input as { Payload: unknown }).Payload);
          calls.push(`RequestApproval ${payload.replace(/"\d{4}-\d\d-\d\dT[\d:.]+Z"/, '"<start>"')}`);
          return new Promise(() => undefined);
        },
        Expire: async (input) => {
          calls.push(`Expire ${JSON.stringify(input)}`);
          return {};
        },
        Deliver: async () => ({}),
      },
    );
    await execution.result;
    expect(calls).toEqual([
      'Turn',
      // The whole state as `turnOutcome`: this Turn returns no `approvalIds` (as an earlier release's did),
      // and the task still runs (a path to the missing field would have failed it).
      // Which attempt of the wait it is, from the context object: the fence of its token (request-record.ts).
      'RequestApproval {"runId":"run_2","turn":1,"approvalTimeoutSeconds":1,"taskToken":"token-1","wait":{"retryCount":0,"redriveCount":0,"startTime":"<start>"},"turnOutcome":{"runId":"run_2","turn":1,"segmentStartTurn":0,"next":"await_approval","approvalTimeoutSeconds":1}}',
      'Expire {"runId":"run_2","turn":1,"segmentStartTurn":0}',
      'Turn',
    ]);
  });

  it('marks the run failed with the caught error when Turn throws, then fails the execution', async () => {
    const failedWith: unknown[] = [];
    const execution = run(
      { runId: 'run_3', turn: 0, segmentStartTurn: 0 },
      {
        Turn: async () => {
          const error = new Error('boom');
          error.name = 'ModelBadRequestError';
          throw error;
        },
        MarkFailed: async (input) => {
          failedWith.push(input);
          return {};
        },
      },
    );
    await expect(execution.result).rejects.toThrow();
    expect(failedWith).toEqual([
      expect.objectContaining({
        runId: 'run_3',
        turn: 0,
        error: expect.objectContaining({ Error: 'ModelBadRequestError' }),
      }),
    ]);
  });

  it('marks the run failed when Turn returns no routing decision', async () => {
    const failedWith: unknown[] = [];
    const execution = run(
      { runId: 'run_4', turn: 0, segmentStartTurn: 0 },
      {
        Turn: async (input) => ({ ...input }),
        MarkFailed: async (input) => {
          failedWith.push(input);
          return {};
        },
      },
    );
    await expect(execution.result).rejects.toThrow();
    expect(failedWith).toEqual([{ runId: 'run_4', turn: 0, segmentStartTurn: 0 }]);
  });

  it('continues as new with segmentStartTurn = turn, addressed to its own state machine', async () => {
    const started: unknown[] = [];
    const execution = run(
      { runId: 'run_5', turn: 0, segmentStartTurn: 0 },
      {
        Turn: async (input) => ({ ...input, turn: 40, next: 'continue_as_new' }),
        ContinueAsNew: async (input) => {
          started.push(input);
          return { ExecutionArn: 'arn:aws:states:local:000000000000:execution:wf:next' };
        },
      },
    );
    await expect(execution.result).resolves.toMatchObject({ runId: 'run_5', turn: 40 });
    expect(started).toEqual([
      {
        StateMachineArn: 'arn:aws:states:local:000000000000:stateMachine:wf',
        // `<runId>-c<turn>-<MD5 of this execution's name>`: the nested intrinsics evaluate as on AWS.
        Name: 'run_5-c40-f97c5d29941bfb1b2fdab0874906ab82', // MD5('one')
        Input: expect.objectContaining({ runId: 'run_5', turn: 40, segmentStartTurn: 40 }),
      },
    ]);
  });
});
