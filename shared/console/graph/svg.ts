/**
 * A graph run drawn as inline SVG: one box per node (its id, its type and its step state in words, filled by
 * state), one arrow per edge with its `when` condition as the edge's title (the browser's tooltip, and what a
 * screen reader announces). Everything is escaped by hono's `html`; there is no script and no external resource.
 */
import { html } from 'hono/html';
import type { StepStatus } from '../../schemas/graph-step.ts';
import { layoutGraph, type Point } from './layout.ts';
import { STATE_LOOKS } from './states.ts';

export type DrawnNode = { id: string; type: string; state: StepStatus; attempt?: number | undefined };
export type DrawnEdge = { from: string; to: string; when?: string | undefined };

const CHAR_PX = 7.4;
const NODE_HEIGHT = 46;

const nodeWidth = (node: DrawnNode) =>
  Math.max(110, Math.ceil(Math.max(node.id.length, subtitle(node).length) * CHAR_PX) + 24);

const subtitle = (node: DrawnNode) =>
  `${node.type} · ${node.state}${node.attempt !== undefined && node.attempt > 1 ? ` (attempt ${node.attempt})` : ''}`;

const pathOf = (points: readonly Point[]) =>
  points
    .map((point, index) => `${index === 0 ? 'M' : 'L'}${point.x.toFixed(1)},${point.y.toFixed(1)}`)
    .join(' ');

/** The drawing of `nodes` and `edges`, laid out by dagre on the server. */
export function graphSvg(nodes: readonly DrawnNode[], edges: readonly DrawnEdge[]) {
  const byId = new Map(nodes.map((node) => [node.id, node]));
  const placed = layoutGraph(
    nodes.map((node) => ({ id: node.id, width: nodeWidth(node), height: NODE_HEIGHT })),
    edges,
  );
  const arrows = placed.edges.map((edge) => {
    const title = edge.when === undefined ? `${edge.from} → ${edge.to}: always` : `when ${edge.when}`;
    return html`<g class="edge" data-from="${edge.from}" data-to="${edge.to}"><title>${title}</title>
<path d="${pathOf(edge.points)}" fill="none" stroke="#57606a" stroke-width="1.5"
stroke-dasharray="${edge.when === undefined ? 'none' : '6 3'}" marker-end="url(#arrow)"/></g>`;
  });
  const boxes = placed.nodes.map((box) => {
    const node = byId.get(box.id)!;
    const look = STATE_LOOKS[node.state];
    const left = box.x - box.width / 2;
    const top = box.y - box.height / 2;
    return html`<g class="node" data-node="${node.id}" data-state="${node.state}"><title>${node.id}: ${node.state}</title>
<rect x="${left.toFixed(1)}" y="${top.toFixed(1)}" width="${box.width}" height="${box.height}" rx="6"
fill="${look.fill}" stroke="${look.stroke}" stroke-width="2" stroke-dasharray="${look.dash ?? 'none'}"/>
<text x="${box.x.toFixed(1)}" y="${(box.y - 4).toFixed(1)}" text-anchor="middle" font-weight="600">${node.id}</text>
<text x="${box.x.toFixed(1)}" y="${(box.y + 13).toFixed(1)}" text-anchor="middle" font-size="12">${subtitle(node)}</text></g>`;
  });
  return html`<svg id="graph" role="img" aria-label="The run's graph: each step and its state"
xmlns="http://www.w3.org/2000/svg" width="${placed.width}" height="${placed.height}"
viewBox="0 0 ${placed.width} ${placed.height}" font-family="system-ui,sans-serif" font-size="13">
<defs><marker id="arrow" viewBox="0 0 10 10" refX="10" refY="5" markerWidth="8" markerHeight="8" orient="auto-start-reverse">
<path d="M0,0 L10,5 L0,10 z" fill="#57606a"/></marker></defs>${arrows}${boxes}</svg>`;
}
