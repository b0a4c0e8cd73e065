/**
 * The external state machine's serialized shape (docs/state-machine.md, "The external machine"): the states of
 * the contract, Start → Route → ObserveWait (SecondsPath, guarded) → Observe loop, Finish, Deliver only from
 * `deliver`, Start/Observe/Finish caught to AbandonExternal (cancel the engine's execution) and on to
 * MarkExternalFailed, Start retried with the same key on "retry later" and on
 * crashes, the Wait and Retry/Catch rules checked offline (infra/asl-rules.ts), and the local runner's view.
 */
import { beforeAll, describe, expect, it } from 'vitest';
import { aslProblems } from '../../infra/asl-rules.ts';
import {
  EXTERNAL_HANDLER_BY_STATE,
  EXTERNAL_NEXT,
  EXTERNAL_STATE_NAMES,
} from '../../infra/constructs/state-names.ts';
import { synthesizeLocalDefinitions } from '../../infra/local-definition.ts';
import { flatTemplate, logicalId, type SynthesizedRuntime, synthRuntime } from './synth.ts';

type State = Record<string, unknown> & { Type: string };
type Machine = { States: Record<string, State>; StartAt: string };
const names = EXTERNAL_STATE_NAMES;

let synthesized: SynthesizedRuntime;
let states: Record<string, State>;
let definition: Machine;

beforeAll(() => {
  synthesized = synthRuntime({
    externalEngines: { 'http-runtime': { enabled: true, settings: { endpoint: 'https://engine.internal' } } },
  });
  const machines = flatTemplate(synthesized.template).findResources('AWS::StepFunctions::StateMachine');
  const machine = machines[logicalId(synthesized.stack.runtime.externalStateMachine.stateMachine)];
  definition = JSON.parse(machine?.Properties.DefinitionString as string) as Machine;
  states = definition.States;
});

describe('ExternalStateMachine', () => {
  it('is a Standard state machine with tracing and ERROR logging without execution data', () => {
    const machines = synthesized.template.findResources('AWS::StepFunctions::StateMachine');
    expect(
      machines[logicalId(synthesized.stack.runtime.externalStateMachine.stateMachine)]?.Properties,
    ).toMatchObject({
      StateMachineType: 'STANDARD',
      TracingConfiguration: { Enabled: true },
      LoggingConfiguration: { Level: 'ERROR', IncludeExecutionData: false },
    });
  });

  it('keeps stable construct ids (renaming one would replace the state machine)', () => {
    const id = logicalId(synthesized.stack.runtime.externalStateMachine.stateMachine);
    expect(id).toMatch(/^RuntimeExternalStateMachine[0-9A-F]{8}$/);
  });

  it('has exactly the states of the contract, starting at ExternalStart', () => {
    expect(definition.StartAt).toBe(names.start);
    expect(new Set(Object.keys(states))).toEqual(new Set(Object.values(names)));
  });

  it('breaks no Retry/Catch or Wait rule (asl-rules.ts)', () => {
    expect(aslProblems(definition)).toEqual([]);
  });

  it('waits SecondsPath $.waitSeconds, reached only through a rule that checks it is present and numeric', () => {
    expect(states[names.wait]).toMatchObject({
      Type: 'Wait',
      SecondsPath: '$.waitSeconds',
      Next: names.observe,
    });
    const route = states[names.route] as State & { Choices: Record<string, unknown>[]; Default: string };
    const toWait = route.Choices.filter((choice) => choice.Next === names.wait);
    expect(toWait).toHaveLength(1);
    expect(JSON.stringify(toWait[0])).toContain('"IsNumeric":true');
    expect(route.Default).toBe(names.abandon);
  });

  it('routes every value of $.next; a missing one first, to AbandonExternal', () => {
    const route = states[names.route] as State & { Choices: { Next: string }[] };
    expect(route.Choices[0]).toMatchObject({
      Not: { Variable: '$.next', IsPresent: true },
      Next: names.abandon,
    });
    const serialized = JSON.stringify(route.Choices);
    for (const next of Object.values(EXTERNAL_NEXT)) expect(serialized).toContain(`"${next}"`);
    const deliverRule = route.Choices.find((choice) => choice.Next === names.deliver);
    expect(JSON.stringify(deliverRule)).toContain(`"StringEquals":"${EXTERNAL_NEXT.deliver}"`);
  });

  it('loops Observe back to the route; Start and Finish go there too; Deliver ends the execution', () => {
    for (const task of [names.start, names.observe, names.finish])
      expect(states[task]?.Next).toBe(names.route);
    expect(states[names.deliver]).toMatchObject({ End: true });
    expect(states[names.deliver]).not.toHaveProperty('Next');
    expect(states[names.markFailed]?.Next).toBe(names.failed);
  });

  it('catches every error of Start, Observe and Finish to AbandonExternal with the error at $.error', () => {
    for (const task of [names.start, names.observe, names.finish])
      expect(states[task]?.Catch).toEqual([
        { ErrorEquals: ['States.ALL'], Next: names.abandon, ResultPath: '$.error' },
      ]);
    // Deliver runs after the run ended done: nothing left to cancel.
    expect(states[names.deliver]?.Catch).toEqual([
      { ErrorEquals: ['States.ALL'], Next: names.markFailed, ResultPath: '$.error' },
    ]);
  });

  it('AbandonExternal gets the whole state, keeps it for MarkExternalFailed, and is itself caught there', () => {
    expect(states[names.abandon]).toMatchObject({
      Type: 'Task',
      Parameters: { 'runId.$': '$.runId', step: 'abandon', 'state.$': '$' },
      ResultPath: null,
      Next: names.markFailed,
      Catch: [{ ErrorEquals: ['States.ALL'], Next: names.markFailed, ResultPath: '$.abandonError' }],
    });
  });

  it('retries Start on "retry later" and on crashes (the same key: the engine deduplicates), bounded', () => {
    const retry = states[names.start]?.Retry as { ErrorEquals: string[]; MaxAttempts: number }[];
    const errors = retry.flatMap((retrier) => retrier.ErrorEquals);
    expect(errors).toEqual(
      expect.arrayContaining(['ExternalRetryLaterError', 'Lambda.Unknown', 'Sandbox.Timedout']),
    );
    // All but the throttle's own retrier (a throttled invocation never ran: execution-ended.test.ts).
    for (const retrier of retry.filter(
      (each) => !each.ErrorEquals.includes('Lambda.TooManyRequestsException'),
    ))
      expect(retrier.MaxAttempts).toBeLessThanOrEqual(6);
  });

  it('hands the steps the run id and the step only (payloads ≤ 256 KB)', () => {
    expect(states[names.start]?.Parameters).toEqual({ 'runId.$': '$.runId', step: 'start' });
    expect(states[names.observe]?.Parameters).toEqual({ 'runId.$': '$.runId', step: 'observe' });
    expect(states[names.finish]?.Parameters).toEqual({ 'runId.$': '$.runId', step: 'finish' });
  });

  it("gives the external function and workflow-write (the save-time check) the deployment's engines", () => {
    const functions = synthesized.template.findResources('AWS::Lambda::Function');
    const env = (name: 'external' | 'workflow-write'): Record<string, unknown> => {
      const fn = functions[logicalId(synthesized.stack.runtime.functions[name].function)];
      return (
        (fn?.Properties.Environment as { Variables: Record<string, unknown> } | undefined)?.Variables ?? {}
      );
    };
    const engines = JSON.parse(env('external').WF_EXTERNAL_ENGINES as string);
    expect(engines).toEqual({
      'http-runtime': { enabled: true, settings: { endpoint: 'https://engine.internal' } },
    });
    expect(env('workflow-write').WF_EXTERNAL_ENGINES).toBe(env('external').WF_EXTERNAL_ENGINES);
  });

  it('fails the synth naming the field when an enabled engine has bad settings', () => {
    expect(() =>
      synthRuntime({
        externalEngines: {
          'http-runtime': { enabled: true, settings: { endpoint: 'https://e.internal/?q=1' } },
        },
      }),
    ).toThrow(/engines\.http-runtime\.settings\.endpoint/);
  });

  it('is what the local stack runs: every Task state maps to its handler', () => {
    const local = synthesizeLocalDefinitions().external;
    for (const [state, handler] of Object.entries(EXTERNAL_HANDLER_BY_STATE))
      expect(local.functionByState[state]).toBe(handler);
    expect(aslProblems(local.definition)).toEqual([]);
  });
});
