/**
 * Where each node and edge of a graph workflow goes, computed on the server with dagre (a maintained layered
 * layout, pure JS) so the page needs no script: the console draws the result as inline SVG. Nodes are sized
 * from their labels; edges come back as polylines from the source's border to the target's.
 */
import { graphlib, layout } from '@dagrejs/dagre';

export type LayoutNode = { id: string; width: number; height: number };
export type LayoutEdge = { from: string; to: string; when?: string | undefined };
export type Point = { x: number; y: number };

export type PlacedNode = LayoutNode & { x: number; y: number };
export type PlacedEdge = LayoutEdge & { points: Point[] };
export type Placed = { width: number; height: number; nodes: PlacedNode[]; edges: PlacedEdge[] };

/** Space around the drawing, so borders and arrowheads are not clipped by the SVG's viewBox. */
const MARGIN = 12;

/**
 * Lays the graph out top to bottom. Node centres (`x`, `y`) and edge points are in the drawing's coordinates,
 * which start at 0,0; edges to a node that is not in `nodes` are left out (the definition was validated).
 */
export function layoutGraph(nodes: readonly LayoutNode[], edges: readonly LayoutEdge[]): Placed {
  const graph = new graphlib.Graph({ multigraph: true, directed: true });
  graph.setGraph({ rankdir: 'TB', nodesep: 28, ranksep: 44, edgesep: 14, marginx: MARGIN, marginy: MARGIN });
  graph.setDefaultEdgeLabel(() => ({}));
  for (const node of nodes) graph.setNode(node.id, { width: node.width, height: node.height });
  const known = new Set(nodes.map((node) => node.id));
  const drawn = edges.filter((edge) => known.has(edge.from) && known.has(edge.to));
  drawn.forEach((edge, index) => {
    graph.setEdge(edge.from, edge.to, {}, `e${index}`);
  });
  layout(graph);

  const placedNodes = nodes.map((node) => {
    const at = graph.node(node.id);
    return { ...node, x: at.x, y: at.y };
  });
  const placedEdges = drawn.map((edge, index) => {
    const points = graph.edge(edge.from, edge.to, `e${index}`)?.points ?? [];
    return { ...edge, points: points.map((point: Point) => ({ x: point.x, y: point.y })) };
  });
  const label = graph.graph();
  return {
    width: Math.ceil(label.width ?? 0),
    height: Math.ceil(label.height ?? 0),
    nodes: placedNodes,
    edges: placedEdges,
  };
}
