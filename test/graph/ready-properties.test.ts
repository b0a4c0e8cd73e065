/** Properties of readiness over random DAGs with random conditions, driven to the end by a naive executor. */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  type GraphNode,
  type GraphShape,
  type Readiness,
  readiness,
  type StepStatus,
} from '../../shared/graph/index.ts';

type Edge = { from: string; to: string; when?: string };

/** A DAG over n0..n(k-1) (n0 the start); edges only go forward; nodes without outgoing edges are ends. */
const arbitraryGraph = fc.integer({ min: 2, max: 9 }).chain((size) =>
  fc
    .array(
      fc.record({
        from: fc.nat(size - 2),
        gap: fc.integer({ min: 1, max: size - 1 }),
        when: fc.constantFrom(undefined, 'true', 'false', 'input.go', 'steps.n0.status = "succeeded"'),
      }),
      { maxLength: 20 },
    )
    .map((raw) => {
      const seen = new Set<string>();
      const edges: Edge[] = [];
      for (const { from, gap, when } of raw) {
        const to = Math.min(from + gap, size - 1);
        const key = `${from}>${to}`;
        if (seen.has(key)) continue;
        seen.add(key);
        edges.push(
          when === undefined ? { from: `n${from}`, to: `n${to}` } : { from: `n${from}`, to: `n${to}`, when },
        );
      }
      const ids = Array.from({ length: size }, (_, i) => `n${i}`);
      const type = (id: string) =>
        id === 'n0' ? 'start' : edges.some((e) => e.from === id) ? 'service_task' : 'end';
      return { nodes: ids.map((id) => ({ id, type: type(id) }) as GraphNode), edges } satisfies GraphShape;
    }),
);

const fires = (edge: Edge, status: Record<string, StepStatus>, go: boolean) =>
  status[edge.from] === 'succeeded' &&
  (edge.when === undefined ||
    edge.when === 'true' ||
    edge.when.startsWith('steps') ||
    (edge.when === 'input.go' && go));

describe('readiness over random DAGs', () => {
  it('settles every step once, consistently with the edges, and ends complete exactly when an end ran', async () => {
    await fc.assert(
      fc.asyncProperty(arbitraryGraph, fc.boolean(), async (graph, go) => {
        const status: Record<string, StepStatus> = {};
        const data = () => ({
          input: { go },
          steps: Object.fromEntries(Object.entries(status).map(([id, s]) => [id, { status: s }])),
        });
        let result: Readiness = await readiness(graph, data());
        for (let round = 0; result.outcome === 'running'; round += 1) {
          expect(round).toBeLessThanOrEqual(graph.nodes.length);
          for (const id of result.skipped) status[id] = 'skipped';
          for (const step of result.ready) {
            expect(status[step.id]).toBeUndefined();
            // A join waits: every source of an incoming edge has settled before the step is ready.
            const sources = graph.edges.filter((edge) => edge.to === step.id).map((edge) => edge.from);
            for (const source of sources) expect(status[source]).toBeDefined();
            status[step.id] = 'succeeded';
          }
          result = await readiness(graph, data());
        }
        // Conditional edges out of one node are alternatives: two true ones halt the run, naming that node.
        const overlapping = graph.nodes
          .filter(
            (node) =>
              graph.edges.filter(
                (edge) => edge.from === node.id && edge.when !== undefined && fires(edge, status, go),
              ).length > 1,
          )
          .map((node) => node.id);
        if (result.halt) {
          expect(result).toMatchObject({ outcome: 'failed', halt: { reason: 'condition_error' } });
          for (const error of result.conditionErrors)
            expect(error.error.code).toBe('GRAPH_ALTERNATIVES_OVERLAP');
          expect([...result.halt.steps].sort()).toEqual([...overlapping].sort());
          return;
        }
        expect(overlapping).toEqual([]);
        for (const id of result.skipped) status[id] = 'skipped';
        // Every node reachable along the edges was settled; a node no edge reaches (other than start) is skipped.
        for (const node of graph.nodes) expect(['succeeded', 'skipped']).toContain(status[node.id]);
        for (const node of graph.nodes.slice(1)) {
          const incoming = graph.edges.filter((edge) => edge.to === node.id);
          const fired = incoming.some((edge) => fires(edge, status, go));
          expect(status[node.id]).toBe(fired ? 'succeeded' : 'skipped');
        }
        const endRan = graph.nodes.some((node) => node.type === 'end' && status[node.id] === 'succeeded');
        expect(result.outcome).toBe(endRan ? 'complete' : 'stuck');
        expect(result.conditionErrors).toEqual([]);
      }),
      { numRuns: 200 },
    );
  });
});
