import { describe, expect, it } from 'vitest';
import {
  type GraphNode,
  type GraphShape,
  type RunData,
  readiness,
  type StepStatus,
} from '../../shared/graph/index.ts';

/** A graph from `a>b` (edge) and `a>b:cond` (edge with a condition) strings; node types from the id's prefix. */
function graph(...edges: string[]): GraphShape {
  const ids = new Set<string>();
  const parsed = edges.map((spec) => {
    const [pair, when] = spec.split(':');
    const [from, to] = pair!.split('>') as [string, string];
    ids.add(from).add(to);
    return when ? { from, to, when } : { from, to };
  });
  const type = (id: string) => (id === 'start' ? 'start' : id.startsWith('end') ? 'end' : 'service_task');
  const nodes = [...ids].map((id) => ({ id, type: type(id) }) as GraphNode);
  return { nodes, edges: parsed };
}

const run = (
  statuses: Record<string, StepStatus>,
  input: unknown = {},
  outputs: Record<string, unknown> = {},
): RunData => ({
  input,
  steps: Object.fromEntries(
    Object.entries(statuses).map(([id, status]) => [id, { status, output: outputs[id] }]),
  ),
});

const ids = (ready: { id: string }[]) => ready.map((step) => step.id).sort();

describe('readiness', () => {
  const chain = graph('start>a', 'a>b', 'b>end');
  it('starts with start and walks a chain one step at a time', async () => {
    expect(ids((await readiness(chain, run({}))).ready)).toEqual(['start']);
    expect(ids((await readiness(chain, run({ start: 'succeeded' }))).ready)).toEqual(['a']);
    const waiting = await readiness(chain, run({ start: 'succeeded', a: 'waiting' }));
    expect(waiting).toMatchObject({ ready: [], outcome: 'running' });
    const done = await readiness(
      chain,
      run({ start: 'succeeded', a: 'succeeded', b: 'succeeded', end: 'succeeded' }),
    );
    expect(done).toMatchObject({ ready: [], skipped: [], outcome: 'complete' });
  });

  const fork = graph('start>a', 'start>b', 'a>join', 'b>join', 'join>end');
  it('runs parallel branches together and joins after both', async () => {
    expect(ids((await readiness(fork, run({ start: 'succeeded' }))).ready)).toEqual(['a', 'b']);
    expect((await readiness(fork, run({ start: 'succeeded', a: 'succeeded', b: 'running' }))).ready).toEqual(
      [],
    );
    expect(
      ids((await readiness(fork, run({ start: 'succeeded', a: 'succeeded', b: 'succeeded' }))).ready),
    ).toEqual(['join']);
  });

  const refund = graph(
    'start>triage',
    'triage>review:steps.triage.output.amount > 100',
    'triage>refund:steps.triage.output.amount <= 100',
    'review>refund:steps.review.output.approved = true',
    'review>end_denied:steps.review.output.approved = false',
    'refund>reply',
    'reply>end',
  );
  it('skips the branch whose condition is false and joins on the edge that fired', async () => {
    const small = await readiness(
      refund,
      run({ start: 'succeeded', triage: 'succeeded' }, {}, { triage: { amount: 20 } }),
    );
    expect(ids(small.ready)).toEqual(['refund']);
    expect(small.skipped).toEqual(['review', 'end_denied']);
    const large = await readiness(
      refund,
      run({ start: 'succeeded', triage: 'succeeded' }, {}, { triage: { amount: 500 } }),
    );
    expect(ids(large.ready)).toEqual(['review']);
    expect(large.skipped).toEqual([]);
  });
  it('denied review skips the refund and everything after it, and ends on the other end', async () => {
    const statuses = { start: 'succeeded', triage: 'succeeded', review: 'succeeded' } as const;
    const result = await readiness(
      refund,
      run(statuses, {}, { triage: { amount: 500 }, review: { approved: false } }),
    );
    expect(ids(result.ready)).toEqual(['end_denied']);
    expect(result.skipped.sort()).toEqual(['end', 'refund', 'reply']);
  });
  it('is stuck when every path is skipped and no end was reached', async () => {
    const g = graph('start>a:input.go', 'a>end');
    expect(await readiness(g, run({ start: 'succeeded' }, { go: false }))).toMatchObject({
      ready: [],
      skipped: ['a', 'end'],
      outcome: 'stuck',
    });
  });
  it('halts on a failed step: nothing new starts, running steps finish, then the run fails', async () => {
    const running = await readiness(fork, run({ start: 'succeeded', a: 'failed', b: 'running' }));
    expect(running).toMatchObject({
      ready: [],
      skipped: [],
      outcome: 'running',
      halt: { reason: 'step_failed', steps: ['a'] },
    });
    expect(await readiness(fork, run({ start: 'succeeded', a: 'failed', b: 'succeeded' }))).toMatchObject({
      ready: [],
      outcome: 'failed',
    });
    // Retrying `a` (back to pending) resumes: nothing downstream was skipped.
    expect(ids((await readiness(fork, run({ start: 'succeeded', b: 'succeeded' }))).ready)).toEqual(['a']);
  });
  it('halts on a cancelled step with outcome cancelled', async () => {
    expect(await readiness(fork, run({ start: 'succeeded', a: 'cancelled', b: 'cancelled' }))).toMatchObject({
      outcome: 'cancelled',
    });
  });
  it('fails closed on a condition that cannot be evaluated, naming the edge', async () => {
    const g = graph('start>a:input.amount', 'a>end');
    const result = await readiness(g, run({ start: 'succeeded' }, { amount: 5 }));
    expect(result).toMatchObject({ ready: [], outcome: 'failed', halt: { reason: 'condition_error' } });
    expect(result.conditionErrors).toMatchObject([
      { edge: 0, from: 'start', to: 'a', error: { code: 'GRAPH_NOT_BOOLEAN' } },
    ]);
  });
  it('fails closed on a condition saved before its function was refused ($shuffle), with the save-time code', async () => {
    // readiness compiles the stored condition as it evaluates it, so a definition saved before `shuffle` joined
    // FORBIDDEN_FUNCTIONS halts the run instead of taking a random branch.
    const g = graph('start>a:$shuffle([true, false])[0]', 'a>end');
    const result = await readiness(g, run({ start: 'succeeded' }));
    expect(result).toMatchObject({ ready: [], outcome: 'failed', halt: { reason: 'condition_error' } });
    expect(result.conditionErrors).toMatchObject([
      { edge: 0, from: 'start', to: 'a', error: { code: 'GRAPH_FORBIDDEN_FUNCTION' } },
    ]);
  });
  it('a join with one dead and one open edge still waits for the open one', async () => {
    const g = graph('start>a', 'start>b:input.b', 'a>join', 'b>join', 'join>end');
    const result = await readiness(g, run({ start: 'succeeded', a: 'running' }, { b: false }));
    expect(result).toMatchObject({ ready: [], skipped: ['b'], outcome: 'running' });
    expect(result.edges).toEqual(['fired', 'dead', 'open', 'dead', 'open']);
  });
});

describe('readiness properties', () => {
  /** Every diamond-ladder run, driven to the end by succeeding whatever is ready, completes exactly once. */
  it.each([1, 2, 3, 4])(
    'drives a random-condition ladder of depth %i to a terminal outcome',
    async (depth) => {
      const edges: string[] = ['start>n0'];
      for (let level = 0; level < depth; level += 1) {
        edges.push(
          `n${level}>l${level}:input.pick[${level}] = "l"`,
          `n${level}>r${level}:input.pick[${level}] = "r"`,
        );
        edges.push(`l${level}>n${level + 1}`, `r${level}>n${level + 1}`);
      }
      edges.push(`n${depth}>end`);
      const g = graph(...edges);
      for (const pick of [Array(depth).fill('l'), Array(depth).fill('r'), Array(depth).fill('x')]) {
        const statuses: Record<string, StepStatus> = {};
        let result = await readiness(g, run(statuses, { pick }));
        for (let guard = 0; result.outcome === 'running' && guard < 100; guard += 1) {
          for (const id of result.skipped) statuses[id] = 'skipped';
          for (const step of result.ready) statuses[step.id] = 'succeeded';
          result = await readiness(g, run(statuses, { pick }));
        }
        for (const id of result.skipped) statuses[id] = 'skipped';
        expect(result.outcome).toBe(pick[0] === 'x' ? 'stuck' : 'complete');
        for (const node of g.nodes) expect(['succeeded', 'skipped']).toContain(statuses[node.id]);
      }
    },
  );
});
