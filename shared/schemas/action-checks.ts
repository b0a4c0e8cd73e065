/**
 * Save-time checks of actions, connectors and gates shared by every kind of workflow: an agent workflow's
 * top-level allow-set and an agent_task node's allow-set in a graph are checked by the same rules (and give the
 * same messages). Each check returns issues with a path relative to the definition; the caller adds them to its
 * zod context (`addIssues`).
 */
import type * as z from '../zod.ts';
import { isBuiltinActionName } from './builtin-actions.ts';
import type { Connector } from './connector.ts';
import type { Destination } from './destination.ts';
import type { Gate, GateMode } from './gate.ts';

export type CheckIssue = { path: PropertyKey[]; message: string };
type Gates = Record<string, GateMode | Gate>;
type Connectors = Record<string, Connector>;
type Approvals = { approvers: string[] } | undefined;

/** Each allowed action is listed once and is a built-in or a connector of the workflow. */
export function allowedActionIssues(
  actions: readonly string[],
  connectors: Connectors,
  at: PropertyKey[],
): CheckIssue[] {
  const issues: CheckIssue[] = [];
  const seen = new Set<string>();
  actions.forEach((name, index) => {
    if (seen.has(name)) issues.push({ path: [...at, index], message: `'${name}' is listed twice` });
    seen.add(name);
    if (!isBuiltinActionName(name) && !(name in connectors)) {
      issues.push({
        path: [...at, index],
        message: `'${name}' is neither a built-in action nor a connector defined in connectors`,
      });
    }
  });
  return issues;
}

/** Connectors do not shadow built-ins, and each credential slot they use is declared in credRefs. */
export function connectorIssues(connectors: Connectors, credRefs: Record<string, unknown>): CheckIssue[] {
  const issues: CheckIssue[] = [];
  for (const [name, connector] of Object.entries(connectors)) {
    if (isBuiltinActionName(name)) {
      issues.push({
        path: ['connectors', name],
        message: `'${name}' is a built-in action name; choose another`,
      });
    }
    if (connector.credential && !(connector.credential.slot in credRefs)) {
      issues.push({
        path: ['connectors', name, 'credential', 'slot'],
        message: `credential slot '${connector.credential.slot}' is not declared in credRefs`,
      });
    }
  }
  return issues;
}

/**
 * Each gate names an action it can apply to (`covers`), and a needs_approval gate has approvers (its own or
 * the workflow's approval defaults).
 */
export function gateIssues(args: {
  gates: Gates;
  approvals: Approvals;
  at: PropertyKey[];
  covers: (name: string) => boolean;
  uncovered: (name: string) => string;
}): CheckIssue[] {
  const issues: CheckIssue[] = [];
  for (const [name, gate] of Object.entries(args.gates)) {
    if (!args.covers(name)) issues.push({ path: [...args.at, name], message: args.uncovered(name) });
    const mode = typeof gate === 'string' ? gate : gate.mode;
    const approvers = typeof gate === 'string' ? undefined : gate.approvers;
    if (mode === 'needs_approval' && !approvers && !args.approvals) {
      issues.push({
        path: [...args.at, name],
        message: 'needs_approval needs approvers: set gates.<action>.approvers or approvals.approvers',
      });
    }
  }
  return issues;
}

/** An irreversible or externally publishing connector that may be called always needs approvers. */
export function irreversibleIssues(args: {
  actions: Iterable<string>;
  connectors: Connectors;
  gates: Gates;
  approvals: Approvals;
  at?: (name: string) => PropertyKey[];
}): CheckIssue[] {
  const issues: CheckIssue[] = [];
  for (const name of new Set(args.actions)) {
    const connector = args.connectors[name];
    if (!connector || !(connector.irreversible || connector.externalPublish) || args.approvals) continue;
    const gate = args.gates[name];
    if (!(typeof gate === 'object' && gate.approvers)) {
      issues.push({
        path: args.at?.(name) ?? ['connectors', name],
        message:
          'is irreversible or publishes externally, so it always needs approval: set approvals.approvers',
      });
    }
  }
  return issues;
}

/** An http destination names a connector of the workflow that needs no approval (a delivery cannot wait). */
export function destinationIssues(destination: Destination, connectors: Connectors): CheckIssue[] {
  if (destination.type !== 'http') return [];
  const target = connectors[destination.action];
  const path = ['destination', 'action'];
  if (!target) return [{ path, message: `'${destination.action}' is not a connector of this workflow` }];
  if (!(target.irreversible || target.externalPublish)) return [];
  return [
    {
      path,
      message: `'${destination.action}' publishes externally or is irreversible, so it needs approval, which a delivery cannot wait for: let the model call it as a gated action instead`,
    },
  ];
}

/** Adds issues to a zod refinement context. */
export function addIssues(ctx: z.core.$RefinementCtx, issues: CheckIssue[]): void {
  for (const issue of issues) ctx.addIssue({ code: 'custom', path: issue.path, message: issue.message });
}
