/**
 * "Branches that can never join are refused." The rule: a run reaches exactly one end node.
 *
 * Two outgoing edges of one node run **at the same time** when at least one of them has no condition (two
 * conditional edges are alternatives: the author's conditions choose, and at run time at most one of them may be
 * true — when two are, the run halts `ConditionError` naming them, shared/graph/ready.ts, so alternatives never
 * both run). Such branches must join (meet in
 * a node, which waits for both) before they reach an end. A graph is refused when two branches that run at the
 * same time can reach two **different** end nodes along paths that share no node: the run would finish twice,
 * with two different results. Branches that meet in a join first, or end in the same end node (which then joins
 * them), are fine; so are mutually exclusive (conditional) branches ending in different ends.
 *
 * The check is a max flow of 2 with unit node capacities from the two branch heads to the end nodes; an end has
 * capacity 1, so a flow of 2 means two distinct ends reached along node-disjoint paths.
 */
import type { CheckIssue } from '../schemas/action-checks.ts';
import type { GraphShape } from './ready.ts';
import { nodeLabel } from './structure.ts';

type Arc = { to: number; cap: number; rev: number };

function twoDisjointEnds(graph: GraphShape, heads: [string, string]): string[] | undefined {
  const index = new Map(graph.nodes.map((node, i) => [node.id, i]));
  const n = graph.nodes.length;
  const source = 2 * n;
  const sink = source + 1;
  const arcs: Arc[][] = Array.from({ length: sink + 1 }, () => []);
  const add = (from: number, to: number) => {
    arcs[from]!.push({ to, cap: 1, rev: arcs[to]!.length });
    arcs[to]!.push({ to: from, cap: 0, rev: arcs[from]!.length - 1 });
  };
  // Node i is split into i (in) and n + i (out) with capacity 1.
  graph.nodes.forEach((node, i) => {
    add(i, n + i);
    if (node.type === 'end') add(n + i, sink);
  });
  for (const edge of graph.edges) {
    const from = index.get(edge.from);
    const to = index.get(edge.to);
    if (from !== undefined && to !== undefined) add(n + from, to);
  }
  for (const head of heads) add(source, index.get(head)!);
  for (let flow = 0; flow < 2; flow += 1) {
    const back = new Map<number, [number, Arc]>([[source, [source, arcs[source]![0]!]]]);
    const queue = [source];
    while (queue.length > 0 && !back.has(sink)) {
      const at = queue.shift()!;
      for (const arc of arcs[at]!) {
        if (arc.cap > 0 && !back.has(arc.to)) {
          back.set(arc.to, [at, arc]);
          queue.push(arc.to);
        }
      }
    }
    if (!back.has(sink)) return undefined;
    for (let at = sink; at !== source; ) {
      const [from, arc] = back.get(at)!;
      arc.cap -= 1;
      arcs[arc.to]![arc.rev]!.cap += 1;
      at = from;
    }
  }
  return graph.nodes.flatMap((node, i) =>
    node.type === 'end' && arcs[n + i]!.some((arc) => arc.to === sink && arc.cap === 0) ? [node.id] : [],
  );
}

/** One issue per node whose parallel branches never join (the first such pair of its edges). */
export function branchIssues(graph: GraphShape): CheckIssue[] {
  const issues: CheckIssue[] = [];
  graph.nodes.forEach((node, nodeIndex) => {
    const out = graph.edges.filter((edge) => edge.from === node.id);
    for (const [i, first] of out.entries()) {
      const clash = out.slice(i + 1).find((second) => {
        if (first.when !== undefined && second.when !== undefined) return false;
        return twoDisjointEnds(graph, [first.to, second.to]) !== undefined;
      });
      if (!clash) continue;
      const ends = twoDisjointEnds(graph, [first.to, clash.to])!
        .map((id) => `'${id}'`)
        .join(' and ');
      issues.push({
        path: ['nodes', nodeIndex],
        message: `${nodeLabel(node.id)}: its branches to '${first.to}' and '${clash.to}' run at the same time and never join: they can reach different end nodes (${ends}). Join them in one node before the end, or give both edges conditions of which at most one may be true`,
      });
      return;
    }
  });
  return issues;
}
