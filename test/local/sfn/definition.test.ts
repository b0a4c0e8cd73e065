import { describe, expect, it } from 'vitest';
import { MAX_TIMER_SECONDS, prepareDefinition } from '../../../shared/local/sfn/definition.ts';
import { LocalDefinitionError } from '../../../shared/local/sfn/errors.ts';
import { CONTRACT_FUNCTIONS, definitionsUnderTest, fixtureDefinition } from '../fixtures/definitions.ts';

const HANDLERS = Object.values(CONTRACT_FUNCTIONS);
type State = Record<string, unknown>;

function machine(state: State, functionByState: Record<string, string> = { T: 'turn' }) {
  return prepareDefinition(
    { StartAt: 'T', States: { T: { ...state, End: true } } },
    functionByState,
    HANDLERS,
  );
}

describe('prepareDefinition', () => {
  it.each([
    ['arn:aws:lambda:local:000000000000:function:turn', 'function'],
    ['arn:aws:states:::lambda:invoke', 'lambda-invoke'],
    ['arn:aws:states:::lambda:invoke.waitForTaskToken', 'callback'],
    ['arn:aws:states:::states:startExecution', 'start-execution'],
  ])('classifies a Task on %s as %s', (resource, kind) => {
    // Act
    const { plans } = machine({ Type: 'Task', Resource: resource });

    // Assess
    expect(plans.get('T')?.kind).toBe(kind);
  });

  it.each([
    ['no handler mapped', { Type: 'Task', Resource: 'arn:aws:lambda:local:000000000000:function:x' }, {}],
    [
      'a mapped handler that is missing',
      { Type: 'Task', Resource: 'arn:aws:lambda:local:0:function:x' },
      { T: 'nope' },
    ],
    [
      'an unsupported integration',
      { Type: 'Task', Resource: 'arn:aws:states:::states:startExecution.sync:2' },
      { T: 'turn' },
    ],
  ])('refuses a Task state with %s, naming the state', (_case, state, functionByState) => {
    // Act
    const act = () => machine(state, functionByState);

    // Assess
    expect(act).toThrow(LocalDefinitionError);
    expect(act).toThrow(/State 'T'/);
  });

  it('moves a callback’s TimeoutSecondsPath into the wrapped Parameters and disarms the library timer', () => {
    // Act
    const { definition, plans } = prepareDefinition(
      fixtureDefinition.definition,
      CONTRACT_FUNCTIONS,
      HANDLERS,
    );

    // Assess
    const state = definition.States.RequestApproval as unknown as State;
    expect(state.TimeoutSecondsPath).toBeUndefined();
    expect(state.TimeoutSeconds).toBe(MAX_TIMER_SECONDS);
    expect(state.Parameters).toMatchObject({ 'lsfnTimeoutSeconds.$': '$.approvalTimeoutSeconds' });
    expect(plans.get('RequestApproval')).toEqual({ kind: 'callback', handlerName: 'request-approval' });
  });

  it('gives a Lambda task without TimeoutSeconds no 60 s limit (AWS has none)', () => {
    // Act
    const { definition } = prepareDefinition(fixtureDefinition.definition, CONTRACT_FUNCTIONS, HANDLERS);

    // Assess
    expect((definition.States.Turn as unknown as State).TimeoutSeconds).toBe(MAX_TIMER_SECONDS);
  });

  it.each(definitionsUnderTest)('finds the contract’s states and handlers in the $label', (subject) => {
    // Act
    const { definition, plans } = prepareDefinition(subject.definition, subject.functionByState, HANDLERS);

    // Assess
    expect(Object.keys(definition.States)).toEqual(
      expect.arrayContaining([
        'Turn',
        'Route',
        'RequestApproval',
        'Expire',
        'Deliver',
        'MarkFailed',
        'ContinueAsNew',
      ]),
    );
    expect(
      Object.fromEntries(
        [...plans]
          .filter(([, plan]) => 'handlerName' in plan)
          .map(([state, plan]) => [state, 'handlerName' in plan ? plan.handlerName : '']),
      ),
    ).toEqual(CONTRACT_FUNCTIONS);
    expect(plans.get('ContinueAsNew')?.kind).toBe('start-execution');
  });
});
