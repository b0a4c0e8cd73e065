/**
 * `ExternalStart`: decides the key (from the run id) and the exact payload, records both on the run and in
 * its audit chain under the live policy (live-policy.ts: a workflow disabled, deleted or republished in mode
 * `off` since the run was created ends it `denied`, stop reason `policy_denied`, nothing sent), then by mode
 * (the stricter of the run's and a later version's):
 * - `shadow`: nothing is dispatched; the run ends `done` with stop reason `shadow`;
 * - `report_only`, `live`: the ledger row `external-start` is written `pending`, then `adapter.start`, then
 *   the row settles once with the execution (incarnation, deduplicated) the engine admitted.
 * A retried invocation (a crash after the engine accepted) finds the row `pending` and starts again with the
 * same key and payload: the engine answers the existing execution (`deduplicated`), never a second one; that
 * second send reads the live policy first (no write precedes it), and a refusal ends the run denied. A retried
 * Start that finds an owner's cancel request, or a refusal, sends nothing again: the execution the first send
 * may have admitted is looked up by its key and cancelled (cancel.ts, lookup.ts).
 * An engine at capacity (it answered 429 or 503) is back-pressure, not a failure: the run stays `running`
 * with `external.last.state` `waiting` and `external.capacity` (attempts, the engine's answer, `nextAttemptAt`),
 * and Start answers `retry_start`: the machine waits (StartWait: backoff.ts, the engine's `Retry-After` honoured
 * up to a cap) and Start runs again, with the same key and payload, until it is admitted, the owner cancels,
 * the policy refuses, or the run's deadline passes: then the run ends `failed`, stop reason
 * `engine_at_capacity` (whatever an earlier unanswered send may have admitted is looked up by its key and
 * cancelled first).
 */
import { canonicalJson, sha256Hex } from '../../audit/index.ts';
import { cutText } from '../../core/byte-caps.ts';
import { isoAt } from '../../core/engine.ts';
import type { ExternalRun } from '../../schemas/external-run.ts';
import type { LedgerRow } from '../../schemas/ledger.ts';
import {
  ExternalConflictError,
  ExternalRefusedError,
  ExternalTransportError,
  isAtCapacity,
} from '../errors.ts';
import { nextCapacityWaitSeconds } from './backoff.ts';
import { cancelEngineExecution, cancelExternal, cancelNote } from './cancel.ts';
import { runPayloadFor } from './key.ts';
import { readExternalPolicy, underLivePolicy } from './live-policy.ts';
import { type ExternalNext, ExternalRetryLaterError, type ExternalRunDeps } from './ports.ts';
import {
  deniedEnding,
  dispatchAudit,
  endExternalRun,
  externalAudit,
  externalCallId,
  type LoadedExternalRun,
  loadExternalRun,
  pendingCall,
  settleAudit,
  settledCall,
  updateExternal,
} from './records.ts';

export async function startExternal(deps: ExternalRunDeps, runId: string): Promise<ExternalNext> {
  const loaded = await loadExternalRun(deps, runId);
  if (!loaded) return { runId, next: 'stop' };
  let { run } = loaded;
  const { definition } = loaded;
  const { key } = run.external;
  let { mode } = run.external;
  const at = () => isoAt(deps.clock);
  if (run.external.cancelRequested && run.status === 'pending') {
    // Cancelled before anything was decided or sent: nothing to ask the engine.
    await endExternalRun(deps, run, { status: 'cancelled', stopReason: 'cancelled' });
    return { runId, next: 'stop' };
  }
  if (mode === 'off') {
    // Refused when the run was asked for (start-run): only a run stamped `off` by an older version gets here
    // (a later version in mode `off` is the live policy's refusal, below: the run ends denied).
    await endExternalRun(deps, run, {
      status: 'failed',
      stopReason: 'error',
      error: { name: 'ExternalModeOff', message: `workflow ${run.workflowName} is in mode off` },
    });
    return { runId, next: 'stop' };
  }
  const payload = runPayloadFor(definition, run);
  const payloadSha256 = sha256Hex(canonicalJson(payload));
  const ledger = await deps.store.listLedger(runId);
  let row = ledger.find((candidate) => candidate.toolUseId === externalCallId('start'));
  if (row && row.status !== 'pending') {
    // Admitted before: a resumed execution (the local stack's restart) goes back to observing it.
    if (row.status !== 'completed' || run.external.incarnation === undefined) return { runId, next: 'stop' };
    return {
      runId,
      next: 'wait',
      waitSeconds: run.external.intervalSeconds ?? definition.observe.initialIntervalSeconds,
    };
  }
  if (run.status === 'pending') {
    // The decision, recorded before anything can be sent (in shadow mode, instead of sending it), by a write
    // that lands only under the live policy (live-policy.ts): a disabled or deleted workflow sends nothing.
    const pending = run;
    const decision = await underLivePolicy(deps.store, pending, ({ policy, patch, audit, condition }) => {
      const decided = externalAudit('decided', {
        mode: policy.mode,
        engine: pending.external.engine,
        key,
        payloadSha256,
        payload,
      });
      row = policy.mode === 'shadow' ? undefined : pendingCall(pending, 'start', payloadSha256, at());
      return updateExternal(
        deps,
        pending,
        { ...patch, payload, payloadSha256 },
        {
          status: 'running',
          audit: [...audit, decided, ...(row ? [dispatchAudit(row)] : [])],
          ...(row ? { ledgerCreate: [row] } : {}),
          ...condition,
        },
      );
    });
    if (!decision.allowed) {
      await endExternalRun(deps, run, deniedEnding(decision.reason));
      return { runId, next: 'stop' };
    }
    run = decision.value as typeof run;
    mode = decision.policy.mode;
  } else if (row) {
    // A retried Start (the row written, the outcome of sending unknown). Cancelled meanwhile (an owner's cancel
    // that raced the first send): never sent again; whatever the first send admitted is cancelled (cancel.ts
    // looks the key up) and the run ends cancelled.
    // The start row is settled in the same ending write (as a refused policy's below): a run that ended leaves
    // no call pending.
    if (run.external.cancelRequested) {
      const settled = settledCall(
        row,
        { notSentAgain: 'the run was cancelled', outcomeUnknown: true },
        true,
        at(),
      );
      await cancelExternal(
        deps,
        { run, definition },
        {
          status: 'cancelled',
          stopReason: 'cancelled',
          ...capacityDone(run),
          ledgerSettle: [settled],
          audit: [settleAudit(settled)],
        },
      );
      return { runId, next: 'stop' };
    }
    // Sent again only if the policy holds; refused, the first send's execution (if any) is cancelled.
    const policy = await readExternalPolicy(deps.store, run);
    if (!policy.allowed || policy.mode === 'shadow') {
      const reason = policy.allowed ? `the workflow's latest version is in mode shadow` : policy.reason;
      const cancelled = await cancelEngineExecution(deps, { run, definition });
      const settled = settledCall(row, { notSentAgain: reason, outcomeUnknown: true }, true, at());
      await endExternalRun(
        deps,
        cancelled.run,
        deniedEnding(`${reason}${cancelNote(cancelled.facts)}`, {
          ledgerSettle: [settled],
          audit: [settleAudit(settled)],
        }),
      );
      return { runId, next: 'stop' };
    }
    // Waiting on an engine at capacity: the run's deadline ends the wait before anything is sent again.
    if (run.external.capacity && deps.clock.nowMs() >= Date.parse(run.deadlineAt)) {
      await endAtCapacity(deps, { run, definition }, row);
      return { runId, next: 'stop' };
    }
  }
  if (mode === 'shadow') {
    await endExternalRun(deps, run, {
      status: 'done',
      stopReason: 'shadow',
      result: { text: JSON.stringify({ shadow: true, key, payloadSha256, payload }) },
      audit: [externalAudit('shadow_recorded', { key, payloadSha256, dispatched: false })],
    });
    return { runId, next: 'stop' };
  }
  if (!row) throw new Error(`run ${runId}: the external-start ledger row is missing`);
  const adapter = deps.adapterFor(run, definition);
  try {
    const started = await adapter.start(key, payload);
    const settled = settledCall(
      row,
      { ...started.execution, deduplicated: started.deduplicated },
      false,
      at(),
    );
    await updateExternal(
      deps,
      run,
      {
        incarnation: started.execution.incarnation,
        startedAt: at(),
        intervalSeconds: definition.observe.initialIntervalSeconds,
        // No longer waiting on capacity: the attempts stay (they count against the history: backoff.ts).
        ...(run.external.capacity ? { ...capacityDone(run).patch, last: undefined } : {}),
      },
      {
        ledgerSettle: [settled],
        audit: [
          settleAudit(settled),
          externalAudit('admitted', {
            key,
            incarnation: started.execution.incarnation,
            deduplicated: started.deduplicated,
          }),
        ],
      },
    );
    return { runId, next: 'wait', waitSeconds: definition.observe.initialIntervalSeconds };
  } catch (error) {
    // The engine at capacity: the run waits, then Start tries again with the same key.
    if (isAtCapacity(error)) return atCapacity(deps, { run, definition }, row, error);
    // No usable answer, or "retry later": the state machine retries Start with the same key (safe: dedupe).
    if (error instanceof ExternalTransportError || (error instanceof ExternalRefusedError && error.retryable))
      throw new ExternalRetryLaterError(error);
    const refusal = error instanceof ExternalConflictError || error instanceof ExternalRefusedError;
    if (!refusal) throw error;
    const settled = settledCall(row, { error: error.name, message: error.message }, true, at());
    await endExternalRun(deps, run, {
      status: 'failed',
      stopReason: 'error',
      error: { name: error.name, message: cutText(error.message, 1000) },
      ledgerSettle: [settled],
      audit: [settleAudit(settled), externalAudit('refused', { key, error: error.name })],
    });
    return { runId, next: 'stop' };
  }
}

/** The capacity record without `nextAttemptAt` (admitted, or ended): as an ending's or update's `patch`. */
function capacityDone(run: LoadedExternalRun['run']): { patch?: Partial<ExternalRun> } {
  const capacity = run.external.capacity;
  if (!capacity) return {};
  const { nextAttemptAt: _done, ...rest } = capacity;
  return { patch: { capacity: rest } };
}

/**
 * The engine answered this Start at capacity: recorded on the run (`waiting`, the engine's answer, the next
 * attempt's time; the first refusal also in the audit chain), then `retry_start` after the wait. Past the
 * run's deadline (the wait would end at or after it), the run ends now.
 */
async function atCapacity(
  deps: ExternalRunDeps,
  loaded: LoadedExternalRun,
  row: LedgerRow,
  error: ExternalRefusedError,
): Promise<ExternalNext> {
  const { run } = loaded;
  const nowMs = deps.clock.nowMs();
  const at = new Date(nowMs).toISOString();
  const prior = run.external.capacity;
  const deadlineMs = Date.parse(run.deadlineAt);
  const detail = cutText(error.message, 500);
  const capacity = {
    since: prior?.since ?? at,
    attempts: (prior?.attempts ?? 0) + 1,
    detail,
    ...(error.status === undefined ? {} : { status: error.status }),
    ...(error.retryAfterSeconds === undefined ? {} : { retryAfterSeconds: error.retryAfterSeconds }),
  };
  if (nowMs >= deadlineMs) {
    await endAtCapacity(
      deps,
      { run: { ...run, external: { ...run.external, capacity } }, definition: loaded.definition },
      row,
    );
    return { runId: run.runId, next: 'stop' };
  }
  const waitSeconds = nextCapacityWaitSeconds({
    previousSeconds: prior ? capacityWaitOf(prior) : undefined,
    retryAfterSeconds: error.retryAfterSeconds,
    rounds: run.external.observes + (prior?.attempts ?? 0),
    nowMs,
    deadlineMs,
  });
  const nextAttemptAt = new Date(nowMs + waitSeconds * 1000).toISOString();
  await updateExternal(
    deps,
    run,
    {
      capacity: { ...capacity, nextAttemptAt },
      last: { state: 'waiting', at, detail: cutText(`capacity: ${detail}`, 500) },
    },
    {
      audit: prior
        ? []
        : [
            externalAudit('at_capacity', {
              key: run.external.key,
              status: error.status ?? null,
              retryAfterSeconds: error.retryAfterSeconds ?? null,
              nextAttemptAt,
            }),
          ],
    },
  );
  return { runId: run.runId, next: 'retry_start', waitSeconds };
}

/** The wait the last capacity attempt chose (its `nextAttemptAt` less its own time is not kept: derived). */
function capacityWaitOf(capacity: NonNullable<LoadedExternalRun['run']['external']['capacity']>): number {
  // Doubling from the initial wait, one step per attempt made (backoff.ts caps it).
  return Math.min(2 ** 30, 5 * 2 ** Math.max(0, capacity.attempts - 1));
}

/**
 * The run's deadline passed while the engine was at capacity: the start row is settled (never sent again),
 * whatever an earlier unanswered send may have admitted is looked up by its key and cancelled (cancel.ts),
 * and the run ends `failed`, stop reason `engine_at_capacity`.
 */
async function endAtCapacity(
  deps: ExternalRunDeps,
  loaded: LoadedExternalRun,
  row: LedgerRow,
): Promise<void> {
  const { run } = loaded;
  const capacity = run.external.capacity;
  const at = isoAt(deps.clock);
  const settled = settledCall(
    row,
    { notSentAgain: "the engine was at capacity until the run's deadline", outcomeUnknown: true },
    true,
    at,
  );
  const { nextAttemptAt: _none, ...kept } = capacity ?? { since: at, attempts: 0, detail: '' };
  await cancelExternal(deps, loaded, (facts) => ({
    status: 'failed',
    stopReason: 'engine_at_capacity',
    error: {
      name: 'EngineAtCapacity',
      message:
        `the engine was at capacity: ${kept.attempts} start attempts since ${kept.since} were refused ` +
        `(last: ${kept.detail}) until the run's deadline (${run.deadlineAt})${cancelNote(facts)}`.slice(
          0,
          1000,
        ),
    },
    patch: { capacity: kept as NonNullable<typeof capacity> },
    ledgerSettle: [settled],
    audit: [
      settleAudit(settled),
      externalAudit('capacity_deadline', {
        key: run.external.key,
        attempts: kept.attempts,
        since: kept.since,
      }),
    ],
  }));
}
