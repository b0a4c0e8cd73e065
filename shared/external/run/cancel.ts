/**
 * Cancelling an external execution: the ledger row `external-cancel` is written `pending`, `adapter.cancel`
 * is called, and its three facts — requested, acknowledged, stopped — are recorded apart on the run, in the
 * settled row and in the audit chain. Then the run ends (`cancelled` for an owner's cancel, `failed`/`timeout`
 * when the run's deadline passed, `denied`/`policy_denied` when its live policy no longer allows it). A retry finds the row settled and only ends the run.
 */
import { isoAt } from '../../core/engine.ts';
import type { StopReason } from '../../schemas/run.ts';
import type { ExternalDefinition } from '../definition.ts';
import type { ExternalRunDeps } from './ports.ts';
import {
  deniedEnding,
  dispatchAudit,
  endExternalRun,
  externalAudit,
  externalCallId,
  type LoadedExternalRun,
  pendingCall,
  settleAudit,
  settledCall,
  updateExternal,
} from './records.ts';

export async function cancelExternal(
  deps: ExternalRunDeps,
  loaded: LoadedExternalRun,
  why: { status: 'cancelled' | 'failed' | 'denied'; stopReason: StopReason; message: string },
): Promise<void> {
  let { run } = loaded;
  const definition: ExternalDefinition = loaded.definition;
  const at = () => isoAt(deps.clock);
  const { key, incarnation } = run.external;
  const ledger = await deps.store.listLedger(run.runId);
  let row = ledger.find((candidate) => candidate.toolUseId === externalCallId('cancel'));
  let facts = run.external.cancel;
  if (incarnation !== undefined && (!row || row.status === 'pending')) {
    if (!row) {
      row = pendingCall(run, 'cancel', key, at());
      run = (await updateExternal(
        deps,
        run,
        {},
        { ledgerCreate: [row], audit: [dispatchAudit(row)] },
      )) as typeof run;
    }
    let answer: { requested: boolean; acknowledged: boolean; stopped: boolean; detail?: string };
    try {
      answer = await deps.adapterFor(run, definition).cancel(key, incarnation);
    } catch (error) {
      // Refused (another incarnation, unknown key): it may not have reached anything that runs our work.
      answer = { requested: true, acknowledged: false, stopped: false, detail: (error as Error).message };
    }
    facts = {
      requested: answer.requested,
      acknowledged: answer.acknowledged,
      stopped: answer.stopped,
      ...(answer.detail ? { detail: answer.detail.slice(0, 500) } : {}),
      at: at(),
    };
    const settled = settledCall(row, facts, false, at());
    run = (await updateExternal(
      deps,
      run,
      { cancel: facts },
      {
        ledgerSettle: [settled],
        audit: [
          settleAudit(settled),
          // Three facts, three entries: what was asked, what the engine took, what it says has stopped.
          externalAudit('cancel_requested', { key, requested: facts.requested }),
          externalAudit('cancel_acknowledged', { key, acknowledged: facts.acknowledged }),
          externalAudit('cancel_stopped', { key, stopped: facts.stopped }),
        ],
      },
    )) as typeof run;
  }
  await endExternalRun(
    deps,
    run,
    why.status === 'denied'
      ? deniedEnding(why.message)
      : {
          status: why.status,
          stopReason: why.stopReason,
          ...(why.status === 'failed' ? { error: { name: 'RunTimedOut', message: why.message } } : {}),
        },
  );
}
