/**
 * The shape of the graph itself: node ids unique, exactly one start, at least one end, edges between existing
 * nodes (never into start, never out of an end, never twice), no cycles, every node reachable from start and
 * able to reach an end. Each problem is one issue naming the node (`nodes[3]`) or edge (`edges[2]`).
 */
import type { CheckIssue } from '../schemas/action-checks.ts';
import type { GraphShape } from './ready.ts';

export const nodeLabel = (id: string) => `node '${id}'`;
export const edgeLabel = (edge: { from: string; to: string }) => `edge '${edge.from}' → '${edge.to}'`;

/** Adjacency over the edges that survived the structural checks. */
export type Links = { next: Map<string, string[]>; prev: Map<string, string[]>; usable: number[] };

/** Everything reachable from `from` along `links` (not including `from` unless on a cycle). */
export function reach(from: string, links: Map<string, string[]>): Set<string> {
  const seen = new Set<string>();
  const stack = [...(links.get(from) ?? [])];
  while (stack.length > 0) {
    const id = stack.pop()!;
    if (seen.has(id)) continue;
    seen.add(id);
    stack.push(...(links.get(id) ?? []));
  }
  return seen;
}

function nodeIssues(graph: GraphShape, issues: CheckIssue[]): void {
  const firstIndex = new Map<string, number>();
  graph.nodes.forEach((node, index) => {
    const first = firstIndex.get(node.id);
    if (first === undefined) firstIndex.set(node.id, index);
    else
      issues.push({
        path: ['nodes', index, 'id'],
        message: `${nodeLabel(node.id)}: the id is already used by nodes[${first}]`,
      });
  });
  const starts = graph.nodes.flatMap((node, index) => (node.type === 'start' ? [index] : []));
  if (starts.length === 0)
    issues.push({ path: ['nodes'], message: 'a graph needs exactly one start node; there is none' });
  for (const index of starts.slice(1)) {
    const first = graph.nodes[starts[0]!]!.id;
    issues.push({
      path: ['nodes', index],
      message: `${nodeLabel(graph.nodes[index]!.id)}: a second start node ('${first}' is the first); a graph has exactly one`,
    });
  }
  if (!graph.nodes.some((node) => node.type === 'end')) {
    issues.push({ path: ['nodes'], message: 'a graph needs at least one end node; there is none' });
  }
}

function edgeIssues(graph: GraphShape, issues: CheckIssue[]): number[] {
  const types = new Map(graph.nodes.map((node) => [node.id, node.type]));
  const seen = new Map<string, number>();
  const usable: number[] = [];
  graph.edges.forEach((edge, index) => {
    const label = edgeLabel(edge);
    const before = issues.length;
    for (const end of ['from', 'to'] as const) {
      if (!types.has(edge[end]))
        issues.push({
          path: ['edges', index, end],
          message: `${label}: '${edge[end]}' is not a node of this graph`,
        });
    }
    if (types.get(edge.to) === 'start')
      issues.push({
        path: ['edges', index, 'to'],
        message: `${label}: no edge may lead into the start node`,
      });
    if (types.get(edge.from) === 'end')
      issues.push({ path: ['edges', index, 'from'], message: `${label}: no edge may leave an end node` });
    const key = `${edge.from}\u0000${edge.to}`;
    const twin = seen.get(key);
    if (twin !== undefined)
      issues.push({
        path: ['edges', index],
        message: `${label}: the same edge as edges[${twin}]; put both conditions in one`,
      });
    seen.set(key, index);
    if (issues.length === before) usable.push(index);
  });
  return usable;
}

function link(graph: GraphShape, usable: number[]): Links {
  const next = new Map<string, string[]>();
  const prev = new Map<string, string[]>();
  for (const index of usable) {
    const { from, to } = graph.edges[index]!;
    next.set(from, [...(next.get(from) ?? []), to]);
    prev.set(to, [...(prev.get(to) ?? []), from]);
  }
  return { next, prev, usable };
}

/** Edges that close a cycle (a depth-first back edge), each reported once with the cycle it closes. */
function cycleIssues(graph: GraphShape, links: Links, issues: CheckIssue[]): void {
  const state = new Map<string, 'open' | 'done'>();
  const path: string[] = [];
  const visit = (id: string): void => {
    state.set(id, 'open');
    path.push(id);
    for (const index of links.usable) {
      const edge = graph.edges[index]!;
      if (edge.from !== id) continue;
      if (state.get(edge.to) === 'open') {
        const cycle = [...path.slice(path.indexOf(edge.to)), edge.to].join(' → ');
        issues.push({
          path: ['edges', index],
          message: `${edgeLabel(edge)}: closes a cycle (${cycle}); a graph has no cycles`,
        });
      } else if (!state.has(edge.to)) visit(edge.to);
    }
    path.pop();
    state.set(id, 'done');
  };
  for (const node of graph.nodes) if (!state.has(node.id)) visit(node.id);
}

/** Structural issues, and the links (over usable edges) the other checks build on. */
export function structureIssues(graph: GraphShape): { issues: CheckIssue[]; links: Links; acyclic: boolean } {
  const issues: CheckIssue[] = [];
  nodeIssues(graph, issues);
  const links = link(graph, edgeIssues(graph, issues));
  const before = issues.length;
  cycleIssues(graph, links, issues);
  const acyclic = issues.length === before;
  const start = graph.nodes.find((node) => node.type === 'start');
  const fromStart = start ? reach(start.id, links.next) : undefined;
  const ends = new Set(graph.nodes.filter((node) => node.type === 'end').map((node) => node.id));
  graph.nodes.forEach((node, index) => {
    if (fromStart && node !== start && !fromStart.has(node.id)) {
      issues.push({
        path: ['nodes', index],
        message: `${nodeLabel(node.id)}: cannot be reached from the start node '${start!.id}'`,
      });
    }
    const toEnd = [...reach(node.id, links.next)].some((id) => ends.has(id));
    if (ends.size > 0 && node.type !== 'end' && !toEnd) {
      issues.push({ path: ['nodes', index], message: `${nodeLabel(node.id)}: has no path to an end node` });
    }
  });
  return { issues, links, acyclic };
}
