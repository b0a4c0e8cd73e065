/**
 * The graph drawing of a graph run: dagre's layout (every node placed, none overlapping, edges running from
 * source to target) and the SVG (each node's state in words and as a fill, the legend, each edge's `when` as
 * its title, everything escaped).
 */
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { layoutGraph } from '../../shared/console/graph/layout.ts';
import { legend, STATE_LOOKS } from '../../shared/console/graph/states.ts';
import { graphSvg } from '../../shared/console/graph/svg.ts';
import { drawnNodes, graphSection } from '../../shared/console/pages/graph.ts';
import { STEP_STATUSES } from '../../shared/schemas/graph-step.ts';

const refund = parse(
  readFileSync(new URL('../../examples/refund-request.graph.yaml', import.meta.url), 'utf8'),
) as { nodes: { id: string; type: string }[]; edges: { from: string; to: string; when?: string }[] };

const step = (stepId: string, status: string, attempt = 1) =>
  ({
    schemaVersion: 1,
    runId: 'run_abcdef123',
    stepId,
    type: 'x',
    status,
    attempt,
    updatedAt: '2026-12-01T07:00:00.000Z',
  }) as never;

type Box = { x: number; y: number; width: number; height: number };
/** Whether `point` lies on the border of `box` (within a pixel). */
const onBorder = (point: { x: number; y: number }, box: Box) => {
  const dx = Math.abs(point.x - box.x);
  const dy = Math.abs(point.y - box.y);
  const inside = dx <= box.width / 2 + 1 && dy <= box.height / 2 + 1;
  return inside && (Math.abs(dx - box.width / 2) < 1 || Math.abs(dy - box.height / 2) < 1);
};

describe('console graph: layout', () => {
  it('places every node of the refund example without overlaps, edges from source to target', () => {
    // Prepare
    const nodes = refund.nodes.map((node) => ({ id: node.id, width: 120, height: 46 }));

    // Act
    const placed = layoutGraph(nodes, refund.edges);

    // Assess
    expect(placed.nodes.map((node) => node.id)).toEqual(refund.nodes.map((node) => node.id));
    for (const [i, a] of placed.nodes.entries())
      for (const b of placed.nodes.slice(i + 1)) {
        const apart =
          Math.abs(a.x - b.x) >= (a.width + b.width) / 2 || Math.abs(a.y - b.y) >= (a.height + b.height) / 2;
        expect(apart, `${a.id} overlaps ${b.id}`).toBe(true);
      }
    const at = new Map(placed.nodes.map((node) => [node.id, node]));
    expect(placed.edges).toHaveLength(refund.edges.length);
    for (const edge of placed.edges) {
      const from = at.get(edge.from)!;
      const to = at.get(edge.to)!;
      expect(edge.points.length).toBeGreaterThanOrEqual(2);
      expect(onBorder(edge.points[0]!, from), `${edge.from}→${edge.to} leaves its source`).toBe(true);
      expect(onBorder(edge.points.at(-1)!, to), `${edge.from}→${edge.to} reaches its target`).toBe(true);
    }
    for (const node of placed.nodes) {
      expect(node.x - node.width / 2).toBeGreaterThanOrEqual(0);
      expect(node.x + node.width / 2).toBeLessThanOrEqual(placed.width);
      expect(node.y + node.height / 2).toBeLessThanOrEqual(placed.height);
    }
  });
});

describe('console graph: drawing', () => {
  it('draws every node with its state in words and its fill: start succeeded, pending where no step item exists', async () => {
    // Prepare
    const nodes = drawnNodes(refund, [step('triage', 'succeeded'), step('manager_review', 'waiting')]);

    // Act
    const svg = String(await graphSvg(nodes, refund.edges));

    // Assess
    const states = Object.fromEntries(
      [...svg.matchAll(/<g class="node" data-node="([a-z_]+)" data-state="([a-z]+)">/g)].map((m) => [
        m[1],
        m[2],
      ]),
    );
    expect(states).toEqual({
      start: 'succeeded',
      triage: 'succeeded',
      manager_review: 'waiting',
      issue_refund: 'pending',
      draft_reply: 'pending',
      done: 'pending',
      declined: 'pending',
    });
    expect(svg).toContain('human_task · waiting');
    expect(svg).toContain(`fill="${STATE_LOOKS.waiting.fill}"`);
    expect(svg).not.toMatch(/<script/i);
  });

  it('gives each edge its condition as its title, escaped', async () => {
    const svg = String(await graphSvg(drawnNodes(refund, []), refund.edges));
    const titles = [...svg.matchAll(/<g class="edge"[^>]*><title>([^<]*)<\/title>/g)].map((m) => m[1]);
    expect(titles).toContain('when steps.triage.output.amount &lt;= 100');
    expect(titles).toContain('when steps.manager_review.output.approve = true');
    expect(titles).toContain('start → triage: always');
    expect(titles).toHaveLength(refund.edges.length);
  });

  it('names a retried step attempt and escapes hostile node text', async () => {
    const svg = String(
      await graphSvg(
        [
          { id: 'a', type: 'service_task', state: 'failed', attempt: 3 },
          { id: 'b', type: '<b>x</b>', state: 'pending' },
        ],
        [{ from: 'a', to: 'b', when: '"</title><script>"' }],
      ),
    );
    expect(svg).toContain('service_task · failed (attempt 3)');
    expect(svg).not.toContain('<script>');
    expect(svg).not.toContain('<b>x</b>');
  });

  it('has a legend naming every step state', async () => {
    const html = String(await legend());
    for (const state of STEP_STATUSES) expect(html).toContain(`</svg> ${state}</li>`);
  });
});

describe('console graph: a deleted workflow', () => {
  it("still shows the run's steps when its workflow version is gone", async () => {
    // Prepare: the API answers 404 for the version, the steps as they are.
    const deps = {
      api: async (_identity: unknown, _method: string, path: string) =>
        path.endsWith('/steps')
          ? { status: 200, body: { steps: [step('triage', 'succeeded'), step('review', 'waiting')] } }
          : { status: 404, body: { error: { code: 'not_found', message: 'workflow not found' } } },
    } as never;
    const run = { runId: 'run_abcdef123', workflowId: 'wf_gone', workflowVersion: 2, kind: 'graph' } as never;

    // Act
    const section = String(await graphSection(deps, { owner: 'alice', principal: 'alice' }, run));

    // Assess
    expect(section).toContain('The workflow version this run ran is gone');
    expect(section).toMatch(/<tr data-step="review">[\s\S]*waiting/);
    expect(section).not.toContain('<svg id="graph"');
  });
});
