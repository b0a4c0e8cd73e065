/**
 * The gate: default deny. An action runs only if it is in the effective grant (the version's allow-set
 * intersected with the live policy), its input parses, and its gate allows; irreversible actions always
 * need approval. Any fault while deciding is a denial.
 */

import { canonicalJson } from '../audit/canonical.ts';
import type { GateMode } from '../schemas/gate.ts';
import type { WorkflowDefinition } from '../schemas/workflow.ts';
import type { Action, ActionCatalog } from './actions.ts';
import { capUtf8, utf8Length } from './byte-caps.ts';
import { inexactNumber, inexactNumberReason } from './inexact-number.ts';
import { MAX_VALUE_DEPTH, storableIssues } from './storable.ts';
import { MAX_APPROVAL_ARGS_BYTES, MAX_REFUSAL_BYTES } from './transcript-limits.ts';

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

/**
 * What stands in the way of a denied call. `input`: only what the model wrote (the input does not match the
 * action's schema, holds a number that cannot be read exactly, or is too large or deep to keep for its approval),
 * so the same action with a corrected input may pass. `policy`: anything else (the action is not granted, gated
 * `deny`, withdrawn or unknown; no approver; a fault while deciding; the per-turn limit; an approval denied,
 * expired or undeliverable), which no rewriting of the input gets past.
 */
export type DenialFault = 'input' | 'policy';

/** Why a call is refused, and whether a corrected input could pass (the model is told which). */
export type Denial = { reason: string; fault: DenialFault };

export type GateResult =
  | { decision: 'allow'; action: Action; input: unknown }
  | {
      decision: 'needs_approval';
      action: Action;
      input: unknown;
      approvers: string[];
      timeoutSeconds: number;
    }
  | ({ decision: 'deny' } & Denial);

/** A denial no corrected input gets past. */
export const policyDenial = (reason: string): Denial => ({ reason, fault: 'policy' });
const deny = (reason: string, fault: DenialFault = 'policy'): GateResult => ({
  decision: 'deny',
  reason,
  fault,
});

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
        return deny(`'${call.name}' is not an action this workflow may use`);
      // Gated `deny` by this run's own version: say so, rather than "withdrawn" (which is a change of policy).
      return gateOf(definition, call.name).mode === 'deny'
        ? deny(`the workflow's gate for '${call.name}' is deny`)
        : deny(`the action '${call.name}' has been withdrawn or disabled for this workflow`);
    }
    const action = catalog.resolve(call.name, definition);
    if (!action) return deny(`no action named '${call.name}' exists`);
    // A number past 2^53 was rounded before the runtime saw it (inexact-number.ts): sent, it would be another
    // number than the model wrote (an account id, say), so it is denied in every mode, before the schema's
    // "expected string" could hide why. The parsed input is checked too: a schema default or transform could
    // put in a number the model never wrote. Both are input faults: the same call with the value as a string
    // (or the field written out) may pass.
    const written = inexactNumber(call.input);
    if (written) return deny(inexactNumberReason(written), 'input');
    const parsed = action.input.safeParse(call.input);
    if (!parsed.success) {
      const problems = parsed.error.issues
        .slice(0, 5)
        .map((issue) => `${issue.path.length ? issue.path.join('.') : 'input'}: ${issue.message}`)
        .join('; ');
      return deny(`the input does not match the action's schema (${problems})`, 'input');
    }
    const produced = inexactNumber(parsed.data);
    if (produced) return deny(inexactNumberReason(produced), 'input');
    const forced = action.irreversible || action.publishesExternally?.(parsed.data) === true;
    const mode = forced && entry.mode === 'allow' ? 'needs_approval' : entry.mode;
    if (mode === 'allow') return { decision: 'allow', action, input: parsed.data };
    if (mode === 'needs_approval') {
      if (entry.approvers.length === 0)
        return deny('this action needs approval but no approvers are configured');
      // The approval item keeps the exact arguments as a map: what DynamoDB cannot hold there (a number below
      // 1e-130, nesting past 24 levels, ...: shared/core/storable.ts) would fail the write that asks for approval,
      // and so would arguments that, with the rest of the approval item, pass DynamoDB's 400 KB item limit
      // (https://docs.aws.amazon.com/amazondynamodb/latest/developerguide/ServiceQuotas.html): sized as DynamoDB
      // counts them (item-size.ts), the denial names the largest field. An input fault: a smaller or shallower
      // input may be stored.
      const [unstorable] = storableIssues(
        parsed.data,
        { maxDepth: MAX_VALUE_DEPTH, maxStoredBytes: MAX_APPROVAL_ARGS_BYTES },
        ['input'],
      );
      if (unstorable)
        return deny(
          `the input cannot be stored for its approval (${unstorable.path} ${unstorable.message})`,
          'input',
        );
      return {
        decision: 'needs_approval',
        action,
        input: parsed.data,
        approvers: entry.approvers,
        timeoutSeconds: entry.timeoutSeconds,
      };
    }
    return deny(`the action '${call.name}' is denied by policy`);
  } catch (error) {
    return deny(
      `the gate could not evaluate this call (${(error as Error)?.name ?? 'fault'}), so it is denied`,
    );
  }
}

/**
 * What the model is told to do after a denial. A policy denial is final for that call. An input fault invites a
 * corrected call: an error tool_result that says what was wrong lets Claude correct its input and call again
 * (https://platform.claude.com/docs/en/agents-and-tools/tool-use/handle-tool-calls, "handle errors with
 * is_error"), and a corrected call is a new tool_use, gated afresh and bounded like any other (per-turn tool
 * calls, max turns, the budget).
 */
const NEXT_STEP: Record<DenialFault, string> = {
  policy: 'Do not retry it; continue without it, or say what you could not do.',
  input: 'Correct the input and call again if the task still needs it.',
};

const REASON_CUT = ' [truncated]';

/** The sentences every denial ends with: not executed, and what to do next. */
const tailOf = (fault: DenialFault): string => `. This call was not executed. ${NEXT_STEP[fault]}`;

/**
 * The tool_result text the model sees for a denial: readable, and clear whether it may call again. A long reason
 * (a schema problem quoting a long key) is cut so the whole stays within `MAX_REFUSAL_BYTES` and the last
 * sentence, what to do next, is always there.
 */
export function denialText({ reason, fault }: Denial): string {
  const tail = tailOf(fault);
  const room = MAX_REFUSAL_BYTES - utf8Length(`Denied: ${tail}`);
  return `Denied: ${capUtf8(reason, room, REASON_CUT)}${tail}`;
}

/** Whether a stored refusal's text is an input-fault denial (`denialText` of an `input` fault). */
export const isInputDenial = (content: string | undefined): boolean =>
  content?.endsWith(tailOf('input')) === true;
