/**
 * Reading an external run with its definition, and the writes every step shares: updating the run's
 * `external` record, ending the run (one fenced commit, then the chain head is anchored), and the ledger
 * rows of the adapter calls that have side effects (start, cancel), written `pending` before dispatch and
 * settled once, so a run's receipts list them like any tool call.
 */
import { cutText } from '../../core/byte-caps.ts';
import { isoAt, RunHandle } from '../../core/engine.ts';
import type { AuditInput, RunChange } from '../../core/store-port.ts';
import { externalDefinitionOf } from '../../graph-run/external-view.ts';
import type { ExternalRun } from '../../schemas/external-run.ts';
import type { LedgerRow } from '../../schemas/ledger.ts';
import { isTerminalRunStatus, type Run, type RunStatus, type StopReason } from '../../schemas/run.ts';
import type { ExternalDefinition } from '../definition.ts';
import type { ExternalRunDeps } from './ports.ts';

export type LoadedExternalRun = { run: Run & { external: ExternalRun }; definition: ExternalDefinition };

/** The run and its bound definition; undefined when the run is gone or has ended. */
export async function loadExternalRun(
  deps: Pick<ExternalRunDeps, 'store'>,
  runId: string,
): Promise<LoadedExternalRun | undefined> {
  const run = await deps.store.getRun(runId);
  if (!run || isTerminalRunStatus(run.status)) return undefined;
  if (run.kind !== 'external' || !run.external) throw new Error(`run ${runId} is not an external run`);
  const version = await deps.store.getWorkflowVersion(run.owner, run.workflowId, run.workflowVersion);
  if (!version) throw new Error(`workflow version ${run.workflowId}@${run.workflowVersion} is missing`);
  // A graph step's child run takes its definition from the graph node its parent pointer names.
  const definition = externalDefinitionOf(version, run);
  return { run: run as LoadedExternalRun['run'], definition };
}

/** The external record with `patch` applied; a field patched to undefined is removed. */
function merged(current: ExternalRun | undefined, patch: Partial<ExternalRun> | undefined): ExternalRun {
  const next = { ...(current as ExternalRun), ...patch };
  return Object.fromEntries(Object.entries(next).filter(([, value]) => value !== undefined)) as ExternalRun;
}

type Extra = Omit<RunChange, 'run' | 'next' | 'audit'> & { audit?: AuditInput[] };

/** Commits a change of the run's `external` record (and anything with it), fenced on the run's revision. */
export async function updateExternal(
  deps: Pick<ExternalRunDeps, 'store' | 'clock'>,
  run: Run,
  patch: Partial<ExternalRun>,
  extra: Extra & { status?: RunStatus } = {},
): Promise<Run> {
  const { status, ...change } = extra;
  const handle = new RunHandle(run, deps);
  return handle.commit({
    ...change,
    next: (current) => ({
      ...current,
      ...(status ? { status } : {}),
      external: merged(current.external, patch),
    }),
    audit: [
      ...(status && status !== run.status
        ? [{ type: 'status_changed' as const, actor: 'system', data: { from: run.status, to: status } }]
        : []),
      ...(change.audit ?? []),
    ],
  });
}

export type ExternalEnding = {
  status: 'done' | 'failed' | 'cancelled' | 'denied';
  stopReason?: StopReason;
  error?: { name: string; message: string };
  result?: { text: string };
  patch?: Partial<ExternalRun>;
  audit?: AuditInput[];
  ledgerSettle?: LedgerRow[];
  /** The live policy's head condition (live-policy.ts): the run ends so only while it holds. */
  liveHead?: RunChange['liveHead'];
};

/** The ending of a run its live policy no longer allows: denied, nothing more sent (like an agent turn's). */
export const deniedEnding = (reason: string, extra: Partial<ExternalEnding> = {}): ExternalEnding => ({
  ...extra,
  status: 'denied',
  stopReason: 'policy_denied',
  error: { name: 'policy_denied', message: cutText(reason, 1000) },
  audit: [...(extra.audit ?? []), externalAudit('policy_denied', { reason: cutText(reason, 500) })],
});

/** Ends the run (one commit: status, stop reason, result or error, the external record, audit); anchors its head. */
export async function endExternalRun(
  deps: Pick<ExternalRunDeps, 'store' | 'clock'>,
  run: Run,
  ending: ExternalEnding,
): Promise<Run> {
  const handle = new RunHandle(run, deps);
  const ended = await handle.commit({
    ...(ending.ledgerSettle ? { ledgerSettle: ending.ledgerSettle } : {}),
    ...(ending.liveHead ? { liveHead: ending.liveHead } : {}),
    next: (current) => ({
      ...current,
      status: ending.status,
      ...(ending.stopReason ? { stopReason: ending.stopReason } : {}),
      ...(ending.error ? { error: ending.error } : {}),
      ...(ending.result ? { result: ending.result } : {}),
      external: merged(current.external, ending.patch),
      endedAt: isoAt(deps.clock),
      lastNext: ending.status === 'done' ? 'done' : 'failed',
    }),
    audit: [
      ...(ending.audit ?? []),
      {
        type: 'status_changed',
        actor: 'system',
        data: {
          from: run.status,
          to: ending.status,
          ...(ending.stopReason ? { stopReason: ending.stopReason } : {}),
        },
      },
    ],
  });
  await deps.store.anchorRunHead(ended, isoAt(deps.clock));
  return ended;
}

/** The ledger identity of an adapter call: one row per call kind per run (start, cancel). */
export const externalCallId = (call: 'start' | 'cancel'): string => `external-${call}`;

/** A `pending` ledger row for an adapter call with side effects; the execution key is its idempotency key. */
export function pendingCall(
  run: Run & { external: ExternalRun },
  call: 'start' | 'cancel',
  argsHash: string,
  at: string,
): LedgerRow {
  return {
    schemaVersion: 1,
    runId: run.runId,
    toolUseId: externalCallId(call),
    turn: 0,
    tool: `external:${run.external.engine}.${call}`,
    argsHash,
    // Keyed admission: a repeated start with the same key and payload is the same execution; cancel is a fact.
    idempotent: true,
    idempotencyKey: run.external.key,
    status: 'pending',
    attempts: 1,
    createdAt: at,
  };
}

/** The row settled once, with what the adapter answered. */
export function settledCall(row: LedgerRow, content: unknown, isError: boolean, at: string): LedgerRow {
  return {
    ...row,
    status: isError ? 'failed' : 'completed',
    outcome: { content: cutText(JSON.stringify(content), 4000), isError },
    settledAt: at,
  };
}

/** The audit entry of a dispatched adapter call (the key and payload digest; never credentials). */
export const dispatchAudit = (row: LedgerRow): AuditInput => ({
  type: 'dispatch',
  actor: 'system',
  data: {
    toolUseId: row.toolUseId,
    tool: row.tool,
    argsHash: row.argsHash,
    idempotencyKey: row.idempotencyKey,
  },
});

/** The audit entry of a settled adapter call. */
export const settleAudit = (row: LedgerRow): AuditInput => ({
  type: 'settle',
  actor: 'system',
  data: {
    toolUseId: row.toolUseId,
    tool: row.tool,
    status: row.status,
    isError: row.outcome?.isError ?? false,
  },
});

/** An `external_execution` audit entry. */
export const externalAudit = (event: string, data: Record<string, unknown>): AuditInput => ({
  type: 'external_execution',
  actor: 'system',
  data: { event, ...data },
});
