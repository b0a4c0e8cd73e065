/**
 * The graph machine against Step Functions' payload quota: a state's input or output is at most 256 KiB
 * (https://docs.aws.amazon.com/step-functions/latest/dg/service-quotas.html). The Map over ready steps gathers
 * every iteration's output into one array, so each iteration must end with its step id only: before, an
 * iteration ended with its wait's answer (a child run's text or a form's values, up to 64 KiB each) and five
 * parallel agent steps could make the Map fail with States.DataLimitExceeded on AWS (the local runner has no
 * such limit). What one iteration holds while it runs is bounded too.
 */
import { beforeAll, describe, expect, it } from 'vitest';
import { GRAPH_STATE_NAMES } from '../../infra/constructs/state-names.ts';
import { MAX_RESULT_TEXT_BYTES } from '../../shared/core/transcript-limits.ts';
import { GraphDefinitionSchema } from '../../shared/graph/definition.ts';
import { MAX_CHILD_ANSWER_BYTES } from '../../shared/graph-run/parent-answer.ts';
import { MAX_TASK_FORM_BYTES } from '../../shared/human-tasks/route-submit.ts';
import { defaultRuntime, flatTemplate, logicalId } from './synth.ts';

type State = Record<string, unknown> & { Type: string };
type Machine = { States: Record<string, State>; StartAt: string };

const PAYLOAD_LIMIT = 256 * 1024;
/** A task token is at most 1024 characters (SendTaskSuccess `taskToken`), a step ref a few ids and counters. */
const TOKEN_AND_REF_BYTES = 1024 + 512;

let item: Record<string, State>;
beforeAll(() => {
  const synthesized = defaultRuntime();
  const machines = flatTemplate(synthesized.template).findResources('AWS::StepFunctions::StateMachine');
  const machine = machines[logicalId(synthesized.stack.runtime.graphStateMachine.stateMachine)];
  const definition = JSON.parse(machine?.Properties.DefinitionString as string) as Machine;
  item = (definition.States[GRAPH_STATE_NAMES.runSteps]!.ItemProcessor as Machine).States;
});

describe('GraphStateMachine: payloads', () => {
  it('ends every Map iteration with its step id only', () => {
    const ends = Object.entries(item).filter(([, state]) => state.End === true && state.Type !== 'Fail');
    expect(ends.length).toBeGreaterThan(0);
    for (const [name, state] of ends)
      expect({ name, OutputPath: state.OutputPath }).toEqual({ name, OutputPath: '$.stepId' });
  });

  it('keeps the gathered Map output of the largest graph far under 256 KiB', () => {
    const MAX_NODES = 100;
    const nodes = (count: number) => Array.from({ length: count }, (_, i) => ({ id: `n${i}`, type: 'end' }));
    const tooBig = (count: number) =>
      (GraphDefinitionSchema.safeParse({ nodes: nodes(count) }).error?.issues ?? []).some(
        (issue) => issue.path.join('.') === 'nodes' && issue.code === 'too_big',
      );
    expect([tooBig(MAX_NODES), tooBig(MAX_NODES + 1)]).toEqual([false, true]);
    // Each element is a JSON string of a step id: at most 40 characters and its quotes, and a comma.
    expect(MAX_NODES * (40 + 3)).toBeLessThan(PAYLOAD_LIMIT / 16);
  });

  it('keeps one iteration (step ref, token, and the answer of its wait) under 256 KiB', () => {
    // A child's answer is its run's result text (capped) and ids, as JSON at most MAX_CHILD_ANSWER_BYTES (a text
    // whose JSON passes that stays on the child run: test/graph/child-answer-size.test.ts); a form's values are
    // at most its body, and JSON at most doubles url-encoded bytes (%00 → \u0000).
    expect(MAX_RESULT_TEXT_BYTES).toBeLessThan(MAX_CHILD_ANSWER_BYTES);
    expect(MAX_CHILD_ANSWER_BYTES + TOKEN_AND_REF_BYTES).toBeLessThan(PAYLOAD_LIMIT);
    expect(2 * MAX_TASK_FORM_BYTES + TOKEN_AND_REF_BYTES).toBeLessThan(PAYLOAD_LIMIT);
  });
});
