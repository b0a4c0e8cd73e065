/**
 * The last task of a run ends its execution itself (`End: true`), with no Succeed state after it: one billed
 * state transition fewer per execution (infra/constructs/state-names.ts, TERMINAL_TASKS, for the AWS semantics).
 * Checked on the definitions the local stack runs, which are the synthesized ones with intrinsics resolved.
 */
import { beforeAll, describe, expect, it } from 'vitest';
import { TERMINAL_TASKS } from '../../infra/constructs/state-names.ts';
import { synthesizeLocalDefinitions } from '../../infra/local-definition.ts';

type State = Record<string, unknown> & { Type: string };
type Machine = { States: Record<string, State>; StartAt: string };
type Kind = keyof typeof TERMINAL_TASKS;

let machines: Record<Kind, Machine>;

beforeAll(() => {
  const local = synthesizeLocalDefinitions();
  machines = {
    run: local.run.definition as Machine,
    graph: local.graph.definition as Machine,
    external: local.external.definition as Machine,
  };
});

/** The states a state can go to next: `Next`, a Choice's rules and `Default`, and every `Catch`. */
function successors(state: State): string[] {
  const rules = (state.Choices as { Next: string }[] | undefined) ?? [];
  const catches = (state.Catch as { Next: string }[] | undefined) ?? [];
  return [state.Next, state.Default, ...rules.map((rule) => rule.Next), ...catches.map((c) => c.Next)].filter(
    (name): name is string => typeof name === 'string',
  );
}

const KINDS: Kind[] = ['run', 'graph', 'external'];

describe('terminal tasks (no Succeed state after the last task)', () => {
  it.each(KINDS)('%s: each terminal task ends the execution (End: true, no Next)', (kind) => {
    const { States } = machines[kind];
    for (const name of TERMINAL_TASKS[kind]) {
      expect(States[name], name).toMatchObject({ Type: 'Task', End: true });
      expect(States[name], name).not.toHaveProperty('Next');
    }
  });

  it.each(KINDS)('%s: only the terminal tasks end the execution successfully from a Task', (kind) => {
    const { States } = machines[kind];
    const endingTasks = Object.entries(States)
      .filter(([, state]) => state.Type === 'Task' && state.End === true)
      .map(([name]) => name);
    expect(new Set(endingTasks)).toEqual(new Set(TERMINAL_TASKS[kind]));
  });

  it.each(KINDS)('%s: no Task leads to a Succeed state (a Succeed state is only a Choice branch)', (kind) => {
    const { States } = machines[kind];
    for (const [name, state] of Object.entries(States)) {
      if (state.Type === 'Choice') continue;
      for (const next of successors(state))
        expect(States[next]?.Type, `${name} → ${next}`).not.toBe('Succeed');
    }
  });
});
