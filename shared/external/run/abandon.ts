/**
 * `AbandonExternal`: a step of the external machine failed for good (its Catch, or a step answer the route
 * does not know). Before the run ends, the engine's execution is asked to cancel (cancel.ts: the
 * `external-cancel` row and its three facts), so a run that ends never leaves its engine working unasked;
 * then the run ends `failed`, stop reason `error`, with the step's error and what became of the execution
 * (stopped, or asked but not confirmed: "it may still run"). MarkExternalFailed follows (owner notice, the
 * parent graph step's answer); it finds the run ended. A run that already ended is left alone.
 */

import { cutText } from '../../core/byte-caps.ts';
import { isoAt } from '../../core/engine.ts';
import { storedError } from '../../core/stored-error.ts';
import { cancelExternal, cancelNote } from './cancel.ts';
import type { ExternalNext, ExternalRunDeps } from './ports.ts';
import { externalAudit, externalCallId, loadExternalRun, settleAudit, settledCall } from './records.ts';

export type StepFailure = { name: string; message: string };

export async function abandonExternal(
  deps: ExternalRunDeps,
  runId: string,
  failed: StepFailure = { name: 'Error', message: 'the run failed' },
): Promise<ExternalNext> {
  // A Catch's error name and message are outside text: bounded as stored, in the run and in its audit entry.
  const failure = storedError(failed);
  const loaded = await loadExternalRun(deps, runId);
  if (!loaded) return { runId, next: 'stop' };
  const { key } = loaded.run.external;
  // A Start that never got an answer (its retries exhausted) left its row pending: settled in the ending, never
  // sent again, its outcome unknown (the cancel facts say what the look-up found).
  const ledger = await deps.store.listLedger(loaded.run.runId);
  const start = ledger.find((row) => row.toolUseId === externalCallId('start') && row.status === 'pending');
  const settled = start
    ? settledCall(start, { notSentAgain: 'the run failed', outcomeUnknown: true }, true, isoAt(deps.clock))
    : undefined;
  await cancelExternal(deps, loaded, (facts) => ({
    ...(settled ? { ledgerSettle: [settled] } : {}),
    status: 'failed',
    stopReason: 'error',
    error: { name: failure.name, message: cutText(`${failure.message}${cancelNote(facts)}`, 1000) },
    audit: [
      {
        type: 'error',
        actor: 'system',
        data: { name: failure.name, message: cutText(failure.message, 1000) },
      },
      ...(settled ? [settleAudit(settled)] : []),
      externalAudit('abandoned', { key, cancelled: facts?.stopped ?? false }),
    ],
  }));
  return { runId, next: 'stop' };
}
