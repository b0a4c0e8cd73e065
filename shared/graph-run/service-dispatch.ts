/** Sending a service step's call: the action with the row's Idempotency-Key, and reading its answer. */
import type { Action, ActionCatalog } from '../core/actions.ts';
import type { Clock, EgressPort, SecretsPort, ToolOutcome } from '../core/ports.ts';
import { runRedacted } from '../core/redacted-dispatch.ts';
import type { CredentialRefSpec } from '../schemas/credentials.ts';
import type { LedgerRow } from '../schemas/ledger.ts';
import type { Run } from '../schemas/run.ts';
import type { GraphDefinitionOf, GraphRunStore } from './ports.ts';
import { unstorableOutput } from './storable-output.ts';

export type ServiceStepDeps = {
  store: GraphRunStore;
  definitionOf: GraphDefinitionOf;
  clock: Clock;
  actions: ActionCatalog;
  egress: EgressPort;
  secrets: SecretsPort;
};

/**
 * Sends the call with the row's Idempotency-Key once every credential of the graph is loaded for redaction
 * (redacted-dispatch.ts: the call is not made when one cannot be); a throw is an outcome; the result is
 * redacted and capped. `rerun` marks a repeat of a row an earlier invocation may have sent.
 */
export async function dispatch(
  deps: ServiceStepDeps,
  run: Run,
  action: Action,
  input: unknown,
  row: LedgerRow,
  redaction: { credRefs: Record<string, CredentialRefSpec>; rerun: boolean },
): Promise<ToolOutcome> {
  const scope = { credRefs: redaction.credRefs, secrets: deps.secrets, owner: run.owner };
  return runRedacted(scope, redaction.rerun, () =>
    action.run(input, {
      idempotencyKey: row.idempotencyKey,
      egress: deps.egress,
      secrets: deps.secrets,
      clock: deps.clock,
      scope: { runId: run.runId, owner: run.owner, workflowId: run.workflowId },
    }),
  );
}

/**
 * A service step's structured output: the action's JSON answer (an HTTP action's result is its status line
 * and headers, a blank line, then the body: the body is read), or its text as `{ text }`. Also as text: a JSON
 * answer DynamoDB cannot hold in the step item (storable-output.ts), which would fail the write that settles the
 * call, after the call was made.
 */
export function outputOf(content: string): unknown {
  const blank = content.indexOf('\n\n');
  for (const candidate of [content, blank >= 0 ? content.slice(blank + 2) : undefined]) {
    if (candidate === undefined) continue;
    try {
      const parsed = JSON.parse(candidate) as unknown;
      if (parsed !== null && typeof parsed === 'object' && unstorableOutput(parsed) === undefined)
        return parsed;
    } catch {}
  }
  return { text: content };
}
