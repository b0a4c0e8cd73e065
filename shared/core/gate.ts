/**
 * The gate: default deny. An action runs only if it is in the effective grant (the version's allow-set
 * intersected with the live policy), its input parses, and its gate allows; irreversible actions always
 * need approval. Any fault while deciding is a denial.
 */

import { canonicalJson } from '../audit/canonical.ts';
import type { GateMode } from '../schemas/gate.ts';
import type { WorkflowDefinition } from '../schemas/workflow.ts';
import type { Action, ActionCatalog } from './actions.ts';
import { inexactNumber, inexactNumberReason } from './inexact-number.ts';
import { MAX_VALUE_DEPTH, storableIssues } from './storable.ts';
import { MAX_APPROVAL_ARGS_BYTES } from './transcript-limits.ts';

export type GrantEntry = { mode: GateMode; approvers: string[]; timeoutSeconds: number };
/** Action name → how it is gated now. Absent names are denied. */
export type EffectiveGrant = Map<string, GrantEntry>;

const STRICTNESS: Record<GateMode, number> = { allow: 0, needs_approval: 1, deny: 2 };
const stricter = (a: GateMode, b: GateMode): GateMode => (STRICTNESS[a] >= STRICTNESS[b] ? a : b);

/** The gate the definition gives `name` (no gate entry: `allow`), with its approvers and timeout. */
export function gateOf(definition: WorkflowDefinition, name: string): GrantEntry {
  const gate = definition.gates[name];
  const mode: GateMode = gate === undefined ? 'allow' : typeof gate === 'string' ? gate : gate.mode;
  const approvers = (typeof gate === 'object' && gate.approvers) || definition.approvals?.approvers || [];
  const timeoutSeconds =
    (typeof gate === 'object' && gate.timeoutSeconds) || definition.approvals?.timeoutSeconds || 3600;
  return { mode, approvers, timeoutSeconds };
}

/**
 * Effective grant = the run's version allow-set ∩ the live policy (the workflow's latest version, and the
 * workflow being enabled). The stricter gate of the two wins; approvers come from the run's version. A connector
 * the latest version sends elsewhere or otherwise (its URL, method, body, credential header, or the secret its
 * credential slot names) is withdrawn: the run's version would still call the old target, which the owner has
 * since replaced. Its description and input schema may change.
 */
export function effectiveGrant(
  version: WorkflowDefinition,
  live: WorkflowDefinition | undefined,
  enabled: boolean,
): EffectiveGrant {
  const grant: EffectiveGrant = new Map();
  if (!enabled || !live) return grant;
  for (const name of version.allowedActions) {
    if (!live.allowedActions.includes(name)) continue;
    if (connectorRedeclared(version, live, name)) continue;
    const own = gateOf(version, name);
    const mode = stricter(own.mode, gateOf(live, name).mode);
    if (mode !== 'deny') grant.set(name, { ...own, mode });
  }
  return grant;
}

/** Whether `name` is a connector of `version` that `live` declares otherwise (any fault: redeclared). */
export function connectorRedeclared(
  version: WorkflowDefinition,
  live: WorkflowDefinition,
  name: string,
): boolean {
  const declared = (of: WorkflowDefinition) => {
    // Own keys only: a connector named 'constructor' must not find Object.prototype's.
    const connector = Object.hasOwn(of.connectors ?? {}, name) ? of.connectors?.[name] : undefined;
    if (connector === undefined) return undefined;
    // What the model is told (description, input schema) may change; where and how the call goes may not.
    const {
      description: _description,
      input: _input,
      ...target
    } = connector as typeof connector & {
      input?: unknown;
    };
    const slot = connector.credential?.slot;
    const secret =
      slot !== undefined && Object.hasOwn(of.credRefs ?? {}, slot) ? of.credRefs?.[slot] : undefined;
    return { target, secret };
  };
  const own = declared(version);
  if (own === undefined) return false;
  try {
    return canonicalJson(own) !== canonicalJson(declared(live) ?? null);
  } catch {
    return true;
  }
}

export type GateResult =
  | { decision: 'allow'; action: Action; input: unknown }
  | {
      decision: 'needs_approval';
      action: Action;
      input: unknown;
      approvers: string[];
      timeoutSeconds: number;
    }
  | { decision: 'deny'; reason: string };

/** Decides one proposed call. Never throws: a fault is a denial. */
export function evaluateGate(
  call: { name: string; input: unknown },
  grant: EffectiveGrant,
  catalog: ActionCatalog,
  definition: WorkflowDefinition,
): GateResult {
  try {
    const entry = grant.get(call.name);
    if (!entry) {
      if (!definition.allowedActions.includes(call.name))
        return { decision: 'deny', reason: `'${call.name}' is not an action this workflow may use` };
      // Gated `deny` by this run's own version: say so, rather than "withdrawn" (which is a change of policy).
      return gateOf(definition, call.name).mode === 'deny'
        ? { decision: 'deny', reason: `the workflow's gate for '${call.name}' is deny` }
        : {
            decision: 'deny',
            reason: `the action '${call.name}' has been withdrawn or disabled for this workflow`,
          };
    }
    const action = catalog.resolve(call.name, definition);
    if (!action) return { decision: 'deny', reason: `no action named '${call.name}' exists` };
    // A number past 2^53 was rounded before the runtime saw it (inexact-number.ts): sent, it would be another
    // number than the model wrote (an account id, say), so it is denied in every mode, before the schema's
    // "expected string" could hide why. The parsed input is checked too: a schema default or transform could
    // put in a number the model never wrote.
    const written = inexactNumber(call.input);
    if (written) return { decision: 'deny', reason: inexactNumberReason(written) };
    const parsed = action.input.safeParse(call.input);
    if (!parsed.success) {
      const problems = parsed.error.issues
        .slice(0, 5)
        .map((issue) => `${issue.path.length ? issue.path.join('.') : 'input'}: ${issue.message}`)
        .join('; ');
      return { decision: 'deny', reason: `the input does not match the action's schema (${problems})` };
    }
    const produced = inexactNumber(parsed.data);
    if (produced) return { decision: 'deny', reason: inexactNumberReason(produced) };
    const forced = action.irreversible || action.publishesExternally?.(parsed.data) === true;
    const mode = forced && entry.mode === 'allow' ? 'needs_approval' : entry.mode;
    if (mode === 'allow') return { decision: 'allow', action, input: parsed.data };
    if (mode === 'needs_approval') {
      if (entry.approvers.length === 0)
        return { decision: 'deny', reason: 'this action needs approval but no approvers are configured' };
      // The approval item keeps the exact arguments as a map: what DynamoDB cannot hold there (a number below
      // 1e-130, nesting past 24 levels, ...: shared/core/storable.ts) would fail the write that asks for approval,
      // and so would arguments that, with the rest of the approval item, pass DynamoDB's 400 KB item limit
      // (https://docs.aws.amazon.com/amazondynamodb/latest/developerguide/ServiceQuotas.html): sized as DynamoDB
      // counts them (item-size.ts), the denial names the largest field.
      const [unstorable] = storableIssues(
        parsed.data,
        { maxDepth: MAX_VALUE_DEPTH, maxStoredBytes: MAX_APPROVAL_ARGS_BYTES },
        ['input'],
      );
      if (unstorable)
        return {
          decision: 'deny',
          reason: `the input cannot be stored for its approval (${unstorable.path} ${unstorable.message})`,
        };
      return {
        decision: 'needs_approval',
        action,
        input: parsed.data,
        approvers: entry.approvers,
        timeoutSeconds: entry.timeoutSeconds,
      };
    }
    return { decision: 'deny', reason: `the action '${call.name}' is denied by policy` };
  } catch (error) {
    return {
      decision: 'deny',
      reason: `the gate could not evaluate this call (${(error as Error)?.name ?? 'fault'}), so it is denied`,
    };
  }
}

/** The tool_result text the model sees for a denial: readable, and clear that it must not retry. */
export const denialText = (reason: string): string =>
  `Denied: ${reason}. This call was not executed. Do not retry it; continue without it, or say what you could not do.`;
