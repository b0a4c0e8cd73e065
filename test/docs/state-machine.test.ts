/**
 * docs/state-machine.md checked against the synthesized state machines (one synth for the file, shared:
 * test/infra/synth.ts `defaultRuntime`) and the code that names their states: the run pointer and the Turn's
 * outcome, the states tables (types, handlers, routes, payloads, timeouts, retries), the graph machine's
 * diagram (every arrow is a transition of the definition), the external machine's table, and the abandon
 * payload the redrive recipe and the execution-ended rule build.
 */
import { App, Stack } from 'aws-cdk-lib';
import * as events from 'aws-cdk-lib/aws-events';
import type { RetryProps } from 'aws-cdk-lib/aws-stepfunctions';
import { beforeAll, describe, expect, it } from 'vitest';
import { abandonInputOf } from '../../infra/constructs/execution-ended.ts';
import {
  CALLBACK_CRASH_RETRY,
  CONTINUE_AS_NEW_RETRY,
  CRASH_RETRY,
  ENGINE_RETRY,
  LAMBDA_SERVICE_RETRY,
  LAMBDA_THROTTLE_RETRY,
} from '../../infra/constructs/run-state-machine.ts';
import {
  EXTERNAL_HANDLER_BY_STATE,
  EXTERNAL_NEXT,
  EXTERNAL_STATE_NAMES,
  GRAPH_HANDLER_BY_STATE,
  GRAPH_NEXT,
  GRAPH_STATE_NAMES,
  HANDLER_BY_STATE,
  HANDLER_NAMES,
  ROUTE_NEXT,
  STATE_NAMES,
} from '../../infra/constructs/state-names.ts';
import { runExecutionInput } from '../../shared/runs/start-run.ts';
import { ReadHintSchema, TurnEventSchema, TurnPointerSchema } from '../../shared/runtime/events.ts';
import { StopReasonSchema } from '../../shared/schemas/run.ts';
import { CONFLICT_ATTEMPTS, CONFLICT_BACKOFF } from '../../shared/store/transact-retry.ts';
import { defaultRuntime, flatTemplate, logicalId } from '../infra/synth.ts';
import { blockWith, declaration, fencedBlocks, pageText, shapeOf, tableRows } from './fenced-blocks.ts';

const PAGE = 'state-machine.md';
const page = pageText(PAGE);
const source = (path: string) => pageText(`../${path}`);

type State = Record<string, unknown> & {
  Type: string;
  Next?: string;
  Default?: string;
  Choices?: Record<string, unknown>[];
  Catch?: { ErrorEquals: string[]; Next: string }[];
  Retry?: { ErrorEquals: string[]; IntervalSeconds: number; MaxAttempts: number; MaxDelaySeconds: number }[];
  ItemProcessor?: { States: Record<string, State> };
};
let run: Record<string, State>;
let graph: Record<string, State>;
let external: Record<string, State>;

beforeAll(() => {
  const synthesized = defaultRuntime();
  const machines = flatTemplate(synthesized.template).findResources('AWS::StepFunctions::StateMachine');
  const { runStateMachine, graphStateMachine, externalStateMachine } = synthesized.stack.runtime;
  const states = (machine: { stateMachine: typeof runStateMachine.stateMachine }) =>
    JSON.parse(machines[logicalId(machine.stateMachine)]?.Properties.DefinitionString as string).States;
  run = states(runStateMachine);
  graph = states(graphStateMachine);
  external = states(externalStateMachine);
});

const unquote = (cell: string) => [...cell.matchAll(/`([^`]+)`/g)].map((m) => m[1] as string);
/** `a` → `B`; `c` → `D` pairs of a table cell (`a missing $.next` is `missing`, `anything else` is `default`). */
function routes(cell: string): [string, string][] {
  return cell.split('; ').map((rule) => {
    const [when, next] = rule.split(' → ') as [string, string];
    const value = when.startsWith('a missing') || when.includes(' missing') ? 'missing' : when;
    return [when === 'anything else' ? 'default' : (unquote(value)[0] ?? value), unquote(next)[0] ?? next];
  });
}
/** The same pairs read from a synthesized Choice state: the compared value (or `missing`) → Next. */
function choicePairs(state: State): [string, string][] {
  const pairs = (state.Choices ?? []).map((choice): [string, string] => {
    const text = JSON.stringify(choice);
    const value =
      /"StringEquals":"([^"]+)"/.exec(text)?.[1] ??
      (/"Not":\{[^}]*"IsPresent":true/.test(text) ? 'missing' : '?');
    return [value, choice.Next as string];
  });
  return [...pairs, ['default', state.Default as string]];
}
const seconds = (retry: RetryProps) =>
  `${retry.interval?.toSeconds()} s, ${retry.maxAttempts}, ${retry.maxDelay?.toSeconds()} s`;

describe('docs/state-machine.md', () => {
  it('has the five blocks this file checks', () => {
    expect(fencedBlocks(PAGE).map((block) => block.info)).toEqual(['json', 'json', 'json', 'sh', '']);
  });

  it("a first execution's input is what the runtime starts it with, and Turn reads its head hint", () => {
    // Prepare
    const documented = JSON.parse(blockWith(PAGE, '"headHint"').body) as Record<string, unknown>;
    const run = {
      runId: 'run_x',
      turn: 0,
      messageCount: 1,
      owner: 'team-a',
      workflowId: 'wf_x',
      trigger: { type: 'on_demand' as const, caller: 'test' },
    };

    // Act
    const input = runExecutionInput(run);
    const event = TurnEventSchema.parse({ ...input, attempt: undefined, execution: documented });

    // Assess: the same members; the hint reaches the turn, and a malformed one is dropped, not an error.
    expect(Object.keys(documented)).toEqual(Object.keys(input));
    expect(event.execution?.headHint).toEqual(documented.headHint);
    const malformed = { ...input, headHint: { owner: '', workflowId: 7 } };
    expect(TurnEventSchema.parse({ ...input, execution: malformed }).execution?.headHint).toBeUndefined();
    expect(TurnEventSchema.parse({ ...input, execution: null }).execution).toBeUndefined();
  });

  it("the run pointer is Turn's input, as the Turn state passes it", () => {
    const pointer = JSON.parse(blockWith(PAGE, '"segmentStartTurn": 0 }').body);
    expect(TurnPointerSchema.safeParse(pointer).success).toBe(true);
    const passed = Object.keys(run.Turn?.Parameters as object).map((key) => key.replace(/\.\$$/, ''));
    expect(passed).toEqual([...Object.keys(pointer), 'attempt', 'execution', 'state']);
  });

  it("the Turn's outcome has the members and `next` values of TurnOutcome, and Route branches on them", () => {
    const block = blockWith(PAGE, '"next": "continue"').body;
    // `readHint` is an object of its own: its members are ReadHint's, and it parses as Turn reads it.
    const readHint = /"readHint": (\{[^}]*\})/.exec(block)?.[1] ?? '';
    expect(ReadHintSchema.safeParse(JSON.parse(readHint)).success).toBe(true);
    const entered = (state: unknown) => TurnEventSchema.parse({ runId: 'run_x', turn: 4, state }).state;
    expect(entered({ ...JSON.parse(readHint), readHint: JSON.parse(readHint) })?.readHint).toEqual(
      JSON.parse(readHint),
    );
    // A malformed hint, or a state without one, is dropped, not an error.
    expect(entered({ readHint: { owner: 'team-a', messageCount: -1 } })?.readHint).toBeUndefined();
    expect(entered(null)).toBeUndefined();
    expect(Object.keys(JSON.parse(readHint)).sort()).toEqual(
      shapeOf(declaration(source('shared/core/outcome.ts'), 'ReadHint') ?? '').members.sort(),
    );
    const members = [...block.replace(readHint, '{}').matchAll(/"(\w+)":/g)].map((m) => m[1] as string);
    const outcome = source('shared/core/outcome.ts');
    const pointer = shapeOf(declaration(outcome, 'TurnPointer') ?? '').members;
    const { members: own, literals } = shapeOf(declaration(outcome, 'TurnOutcome') ?? '');
    expect(members.sort()).toEqual([...pointer, ...own].sort());
    const next = [...(/"next": (.*),$/m.exec(block)?.[1] ?? '').matchAll(/"(\w+)"/g)].map((m) => m[1]);
    expect(next.sort()).toEqual(literals);
    expect(next.sort()).toEqual(Object.values(ROUTE_NEXT).sort());
    const stopReason = /"stopReason": "(\w+)"/.exec(block)?.[1];
    expect(StopReasonSchema.safeParse(stopReason).success, stopReason).toBe(true);
  });

  it("the run machine's states table: its states, types, handlers, payloads and Route are the definition's", () => {
    const rows = tableRows(PAGE, '| state | type | what it does |');
    expect(rows.map(([state]) => unquote(state ?? '')[0])).toEqual(
      Object.values(STATE_NAMES).filter((name) => name !== STATE_NAMES.failed),
    );
    for (const [cell, type, does] of rows) {
      const name = unquote(cell ?? '')[0] as string;
      const handler = /\(`functions\/([\w-]+)\.ts`/.exec(type ?? '')?.[1];
      expect(handler, name).toBe(Reflect.get(HANDLER_BY_STATE, name));
      const state = run[name] as State;
      if (type?.startsWith('Choice')) expect(state.Type).toBe('Choice');
      else expect(state.Type, name).toBe('Task');
      if (type?.includes('`End: true`') || does?.includes('`End: true`')) expect(state.End, name).toBe(true);
    }
    const row = (name: string) => rows.find(([cell]) => cell === `\`${name}\``) as string[];
    // Route: every documented rule is a rule of the Choice, in its order.
    expect(routes(row('Route')[2] ?? '')).toEqual(choicePairs(run.Route as State));
    // Turn's and RequestApproval's payloads, ContinueAsNew's name.
    const turnPayload = /payload `(\{.*\})`/.exec(row('Turn')[1] ?? '')?.[1] ?? '';
    const flatten = (value: object, prefix = ''): string[] =>
      Object.entries(value).flatMap(([key, each]) =>
        typeof each === 'object'
          ? flatten(each, `${key}.`)
          : [`${prefix}${key.replace(/\.\$$/, '')}: ${each}`],
      );
    const documentedPayload = (text: string) =>
      text
        .replace(/^\{|\}$/g, '')
        .replace(/(\w+): \{([^}]*)\}/g, (_, key: string, inner: string) =>
          inner
            .split(', ')
            .map((pair) => `${key}.${pair}`)
            .join(', '),
        )
        .split(', ')
        .map((pair) => (pair.includes(': ') ? pair : `${pair}: $.${pair}`));
    expect(documentedPayload(turnPayload)).toEqual(flatten(run.Turn?.Parameters as object));
    const approvalPayload = /payload `(\{[^`]*\})`/.exec(row('RequestApproval')[1] ?? '')?.[1] ?? '';
    expect(documentedPayload(approvalPayload)).toEqual(
      flatten((run.RequestApproval as State & { Parameters: { Payload: object } }).Parameters.Payload),
    );
    expect(row('RequestApproval')[1]).toContain(
      `\`TimeoutSecondsPath: ${run.RequestApproval?.TimeoutSecondsPath}\``,
    );
    expect(row('ContinueAsNew')[1]).toContain(
      `\`Name.$: ${((run.ContinueAsNew as State).Parameters as Record<string, string>)['Name.$']}\``,
    );
    expect(run.MarkFailed?.Next).toBe(STATE_NAMES.failed);
    expect(run.Failed?.Type).toBe('Fail');
  });

  it("the retrier table is the Turn state's four retriers, nothing else", () => {
    const rows = tableRows(PAGE, '| retrier | errors | interval, attempts, cap |');
    const retriers = [LAMBDA_SERVICE_RETRY, LAMBDA_THROTTLE_RETRY, ENGINE_RETRY, CRASH_RETRY];
    expect(rows.map(([, errors]) => unquote((errors ?? '').replace(/\([^)]*\)/g, '')))).toEqual(
      retriers.map((retry) => retry.errors),
    );
    expect(rows.map(([, , window]) => window?.replace(/:.*$/, ''))).toEqual(retriers.map(seconds));
    expect(
      run.Turn?.Retry?.map((retry) => [
        retry.ErrorEquals,
        `${retry.IntervalSeconds} s, ${retry.MaxAttempts}, ${retry.MaxDelaySeconds} s`,
      ]),
    ).toEqual(retriers.map((retry) => [retry.errors, seconds(retry)]));
  });

  it("a commit's sends on conflicts alone, and the waits between them, are the store's", () => {
    // backOff waits at most min(cap, base × 2^attempt) after send `attempt` (1…), before the next send.
    const waits = Array.from({ length: CONFLICT_ATTEMPTS - 1 }, (_, i) =>
      Math.min(CONFLICT_BACKOFF.capMs, CONFLICT_BACKOFF.baseMs * 2 ** (i + 1)),
    );
    const said = `${waits.slice(0, -1).join(', ')}, then ${waits.at(-1)} ms`;
    expect(page.replace(/\s+/g, ' ')).toContain(
      `sends the same transaction up to ${CONFLICT_ATTEMPTS} times in all, after a jittered wait of at most ${said}`,
    );
  });

  it("the crash-retry table names each task's crash retrier as the definition has it", () => {
    const rows = tableRows(PAGE, '| task | idempotent? | crash retry |');
    const crash = unquote(rows[0]?.[2] ?? '');
    expect(crash).toEqual(CRASH_RETRY.errors);
    const expected: Record<string, readonly string[] | undefined> = {
      RequestApproval: CALLBACK_CRASH_RETRY.errors,
      ContinueAsNew: CONTINUE_AS_NEW_RETRY.errors,
    };
    for (const [task, , retry] of rows) {
      const name = unquote(task ?? '')[0] as string;
      const documented = retry?.startsWith('same three')
        ? crash
        : unquote(retry?.replace(/ only:.*$| \(.*$/, '') ?? '');
      expect(documented, name).toEqual(expected[name] ?? crash);
      const retriers = (run[name]?.Retry ?? []).map((each) => each.ErrorEquals);
      expect(retriers, name).toContainEqual(documented);
    }
  });

  it('each Lambda task of the run machine has the TimeoutSeconds the page gives', () => {
    const sentence =
      /Each Lambda task has `TimeoutSeconds` = [^(]*\(([^)]*)\)/.exec(page.replace(/\s+/g, ' '))?.[1] ?? '';
    const documented = Object.fromEntries(
      sentence.split(', ').flatMap((part) => {
        const [, names, value] = /^(.*) (\d+)$/.exec(part) ?? [];
        return (names ?? '').split(' and ').map((name) => [name, Number(value)]);
      }),
    );
    expect(documented).toEqual(
      Object.fromEntries(
        ['Turn', 'Deliver', 'Expire', 'MarkFailed'].map((name) => [name, run[name]?.TimeoutSeconds]),
      ),
    );
  });

  it('every arrow of the graph machine diagram is a transition of the synthesized graph machine', () => {
    const diagram = blockWith(PAGE, 'Advance ─► RouteGraph').body;
    const item = graph.RunSteps?.ItemProcessor?.States ?? {};
    const all: Record<string, State> = { ...graph, ...item };
    const names = new Set(Object.keys(all));
    // Every state is drawn; every capitalised word that is no state is an annotation (Map, Fail, End …).
    const drawn = new Set(
      [...diagram.matchAll(/\b[A-Z][A-Za-z]+\b/g)].map((m) => m[0]).filter((w) => names.has(w)),
    );
    expect([...drawn].sort()).toEqual([...names].sort());
    expect(Object.values(GRAPH_STATE_NAMES).every((name) => names.has(name))).toBe(true);

    const choices = new Map<number, string>();
    let arrows = 0;
    for (const line of diagram.split('\n')) {
      const catchAll = /^\s*([\w/]+) Catch States\.ALL .*─► (\w+)$/.exec(line);
      if (catchAll) {
        for (const name of (catchAll[1] ?? '').split('/'))
          expect(all[name]?.Catch?.find((each) => each.ErrorEquals.includes('States.ALL'))?.Next, name).toBe(
            catchAll[2],
          );
        continue;
      }
      for (const fork of line.matchAll(/(\w+) ─┬/g))
        choices.set((fork.index ?? 0) + (fork[1]?.length ?? 0) + 2, fork[1] as string);
      // The target in a lookahead: `A ─► B ─► C` is two arrows.
      for (const arrow of line.matchAll(/(\w+)(?: \([^)]*\))? ─*► (?=(\w+))/g)) {
        const [, from, to] = arrow as unknown as [string, string, string];
        arrows++;
        expect(names.has(to), to).toBe(true);
        if (names.has(from)) {
          const state = all[from] as State;
          const targets = [state.Next, state.Default, ...(state.Choices ?? []).map((c) => c.Next)];
          expect(targets, `${from} ─► ${to}`).toContain(to);
        } else if (from === 'Timeout') {
          // `States.Timeout ─► X`: a Catch of States.Timeout leads there.
          const caught = Object.values(all).flatMap((state) => state.Catch ?? []);
          expect(
            caught.some((c) => c.ErrorEquals.includes('States.Timeout') && c.Next === to),
            to,
          ).toBe(true);
        } else {
          // A branch label: the Choice whose fork is drawn in the column of the label's branch mark.
          const column = Math.max(
            ...[...line.slice(0, arrow.index).matchAll(/[┬├└]/g)].map((m) => m.index ?? 0),
          );
          const choice = all[choices.get(column) ?? ''] as State;
          const pairs = choicePairs(choice);
          expect(choice, `${from} ─► ${to}`).toBeDefined();
          const value = from === 'other' || from === 'otherwise' ? 'default' : from;
          expect(pairs, `${from} ─► ${to}`).toContainEqual([value, to]);
        }
      }
    }
    expect(arrows).toBeGreaterThanOrEqual(20);
    // The branch labels of RouteGraph are GRAPH_NEXT values.
    const labels = [...diagram.matchAll(/[┬├└] (\w+) ─/g)].map((m) => m[1] as string);
    for (const label of labels.filter(
      (each) => !each.endsWith('_task') && !['failed', 'other', 'otherwise'].includes(each),
    ))
      expect(Object.values(GRAPH_NEXT), label).toContain(label);
  });

  it("the graph machine's table names each state's function as the definition invokes it", () => {
    const rows = tableRows(PAGE, '| state | function | what it does |');
    const documented = rows.flatMap(([states, fn]) => {
      const functions = unquote(fn ?? '');
      return unquote(states ?? '').map((state, index) => [
        state,
        functions[Math.min(index, functions.length - 1)],
      ]);
    });
    expect(Object.fromEntries(documented)).toEqual(GRAPH_HANDLER_BY_STATE);
  });

  it("the external machine's table: states, types, handlers, routes and next states are the definition's", () => {
    const rows = tableRows(PAGE, '| State | Type | Does | Next |');
    const names = rows.map(([state]) => unquote(state ?? '')[0] as string);
    expect(names).toEqual(Object.values(EXTERNAL_STATE_NAMES).filter((name) => name !== 'ExternalFailed'));
    for (const [cell, type, does, next] of rows) {
      const name = unquote(cell ?? '')[0] as string;
      const state = external[name] as State;
      const kind = type?.startsWith('Lambda task') ? 'Task' : type?.replace(/,.*$/, '');
      expect(state.Type, name).toBe(kind);
      if (kind === 'Task') {
        const handler = /`functions\/([\w-]+)\.ts`/.exec(type ?? '')?.[1] ?? 'external';
        expect(Reflect.get(EXTERNAL_HANDLER_BY_STATE, name), name).toBe(handler);
        const step = /step: "(\w+)"/.exec(type ?? '')?.[1];
        if (step) expect((state.Parameters as Record<string, unknown>).step, name).toBe(step);
      }
      if (next?.includes('`End: true`')) expect(state.End, name).toBe(true);
      else if (next) expect(state.Next, name).toBe(unquote(next)[0]);
      if (name === EXTERNAL_STATE_NAMES.wait) expect(type).toContain(`\`SecondsPath: ${state.SecondsPath}\``);
      if (name === EXTERNAL_STATE_NAMES.route) {
        expect(routes(does ?? '')).toEqual(choicePairs(state));
        const values = routes(does ?? '')
          .map(([value]) => value)
          .filter((v) => v !== 'missing' && v !== 'default');
        expect(values).toEqual(Object.values(EXTERNAL_NEXT));
      }
    }
    expect(external.MarkExternalFailed?.Next).toBe('ExternalFailed');
  });

  it('the abandon payload of the execution-ended table and of the redrive recipe is what the external rule sends', () => {
    const stack = new Stack(new App(), 'Docs');
    const rule = new events.Rule(stack, 'Rule', { eventPattern: { source: ['aws.states'] } });
    const bound = stack.resolve(abandonInputOf().bind(rule)) as {
      inputTemplate: string;
      inputPathsMap: Record<string, string>;
    };
    const event = { detail: { name: 'run_0000000000000000000000000000', status: 'TIMED_OUT' } };
    const at = (path: string) =>
      path
        .replace(/^\$?\./, '')
        .split('.')
        .reduce<unknown>((value, key) => (value as Record<string, unknown>)[key], event);
    const sent = JSON.parse(
      bound.inputTemplate.replace(/<([\w-]+)>/g, (_, name: string) =>
        JSON.stringify(at(bound.inputPathsMap[name] as string)),
      ),
    );
    // The table's payload: `<detail.x>` placeholders, keys unquoted.
    const row = tableRows(PAGE, '| machine | target | what happens |').find(
      ([machine]) => machine === 'external',
    );
    const tabled = /payload `(\{.*\})`/.exec(row?.[1] ?? '')?.[1] ?? '';
    const asJson = (text: string, value: (path: string) => unknown) =>
      JSON.parse(
        text
          .replace(/<(detail\.\w+)>/g, (_, path: string) => JSON.stringify(value(path)))
          .replace(/(\.detail\.\w+)/g, (path: string) => JSON.stringify(value(path)))
          .replace(/([{,]\s*)(\w+):/g, '$1"$2":'),
      );
    expect(asJson(tabled, at)).toEqual(sent);
    // The recipe's jq filter builds the same payload from the event.
    const recipe = blockWith(PAGE, 'step: "abandon"').body;
    const filter = /jq -c '(\{.*\})' \\/.exec(recipe)?.[1] ?? '';
    expect(asJson(filter, at)).toEqual(sent);
    for (const name of [...recipe.matchAll(/--function-name <([\w -]+)>/g)].flatMap((m) =>
      (m[1] ?? '').split(' or '),
    ))
      expect(HANDLER_NAMES, name).toContain(name);
  });
});
