/**
 * What an expression reads from the run data `{ input, steps }`: the field paths that start at the root, such
 * as `input.message` or `steps.triage.output.amount`. Names inside a filter (`items[price > 3]`), after the
 * first step of a path, or in a lambda body are relative to some other value and are not root reads.
 * Validation uses this to refuse unknown steps, steps that are not upstream, and fields an output schema lacks.
 */
import type { ExpressionAst } from './expressions.ts';

/** A root read: the leading names of a path, e.g. ['steps', 'triage', 'output', 'amount']. */
export type DataReference = { names: string[]; position?: number };

type Node = Record<string, unknown> & { type?: string; value?: unknown; position?: number };

const isNode = (value: unknown): value is Node => typeof value === 'object' && value !== null;

/** Leading plain names of path steps, stopping at the first step that is not a simple name. */
function leadingNames(steps: Node[]): string[] {
  const names: string[] = [];
  for (const step of steps) {
    if (step.type !== 'name' || typeof step.value !== 'string') break;
    names.push(step.value);
    // A filter or index narrows the value; the names after it are still fields, but keep it simple and exact.
    if (step.stages || step.predicate) break;
  }
  return names;
}

function visit(node: unknown, root: boolean, out: DataReference[]): void {
  if (Array.isArray(node)) {
    for (const item of node) visit(item, root, out);
    return;
  }
  if (!isNode(node)) return;
  if (node.type === 'path' && Array.isArray(node.steps)) {
    const steps = node.steps.filter(isNode);
    const [first, ...rest] = steps;
    if (first && root) {
      // `$$` and `$` at the root are the run data itself.
      const isRootVariable = first.type === 'variable' && (first.value === '$' || first.value === '');
      const names = isRootVariable ? leadingNames(rest) : leadingNames(steps);
      const at = isRootVariable ? rest[0] : first;
      if (names.length > 0) {
        out.push(typeof at?.position === 'number' ? { names, position: at.position } : { names });
      }
      if (first.type !== 'name' && !isRootVariable) visit(first, root, out);
    }
    for (const step of root ? rest : steps) visit(step, false, out);
    if (first) {
      visit(first.stages, false, out);
      visit(first.predicate, false, out);
    }
    visit(node.group, false, out);
    return;
  }
  if (node.type === 'lambda') {
    visit(node.body, false, out);
    return;
  }
  for (const [key, child] of Object.entries(node)) {
    if (key === 'stages' || key === 'predicate') visit(child, false, out);
    else if (isNode(child) || Array.isArray(child)) visit(child, root, out);
  }
}

/** The root reads of an expression, in source order. */
export function dataReferences(ast: ExpressionAst): DataReference[] {
  const out: DataReference[] = [];
  visit(ast, true, out);
  return out.sort((a, b) => (a.position ?? 0) - (b.position ?? 0));
}
