/**
 * Cancelling an external execution: the ledger row `external-cancel` is written `pending`, `adapter.cancel`
 * is called, and its three facts — requested, acknowledged, stopped — are recorded apart on the run, in the
 * settled row and in the audit chain. Then the run ends as the caller says: `cancelled` for an owner's cancel,
 * `failed`/`timeout` when the run's deadline passed, `denied`/`policy_denied` when its live policy no longer
 * allows it, `failed`/`outcome_unknown` when the engine stopped answering, `failed`/`error` when a step failed
 * for good (abandon.ts). A run never ends with its engine's execution left running unasked. A retry finds the
 * row settled and only ends the run.
 */
import { isoAt } from '../../core/engine.ts';
import type { ExternalRun } from '../../schemas/external-run.ts';
import type { Run } from '../../schemas/run.ts';
import type { CancelFacts } from '../contract.ts';
import type { ExternalRunDeps } from './ports.ts';
import {
  dispatchAudit,
  type ExternalEnding,
  endExternalRun,
  externalAudit,
  externalCallId,
  type LoadedExternalRun,
  pendingCall,
  settleAudit,
  settledCall,
  updateExternal,
} from './records.ts';

type CancelRecord = NonNullable<ExternalRun['cancel']>;

/**
 * Asks the engine to cancel the run's execution (once: a settled `external-cancel` row is not asked again) and
 * records the facts. Nothing is asked when the engine never admitted the execution (no incarnation to name)
 * or already reported it ended (`external.outcome`). Answers the run as written and the facts, if asked.
 */
export async function cancelEngineExecution(
  deps: ExternalRunDeps,
  loaded: LoadedExternalRun,
): Promise<{ run: Run; facts: CancelRecord | undefined }> {
  let run: Run = loaded.run;
  const external = loaded.run.external;
  const at = () => isoAt(deps.clock);
  const { key, incarnation } = external;
  const ledger = await deps.store.listLedger(run.runId);
  let row = ledger.find((candidate) => candidate.toolUseId === externalCallId('cancel'));
  const ended = external.outcome !== undefined;
  if (incarnation === undefined || ended || (row && row.status !== 'pending'))
    return { run, facts: external.cancel };
  if (!row) {
    row = pendingCall(loaded.run, 'cancel', key, at());
    run = await updateExternal(deps, run, {}, { ledgerCreate: [row], audit: [dispatchAudit(row)] });
  }
  const answer = await askToCancel(deps, loaded, key, incarnation);
  const facts: CancelRecord = {
    requested: answer.requested,
    acknowledged: answer.acknowledged,
    stopped: answer.stopped,
    ...(answer.detail ? { detail: answer.detail.slice(0, 500) } : {}),
    at: at(),
  };
  const settled = settledCall(row, facts, false, at());
  run = await updateExternal(
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
  );
  return { run, facts };
}

/** `adapter.cancel`, its faults as facts: never throws. */
async function askToCancel(
  deps: ExternalRunDeps,
  loaded: LoadedExternalRun,
  key: string,
  incarnation: string,
): Promise<CancelFacts> {
  let adapter: ReturnType<ExternalRunDeps['adapterFor']>;
  try {
    adapter = deps.adapterFor(loaded.run, loaded.definition);
  } catch (error) {
    // No adapter (the engine is no longer enabled): nothing left this runtime.
    return { requested: false, acknowledged: false, stopped: false, detail: (error as Error).message };
  }
  try {
    return await adapter.cancel(key, incarnation);
  } catch (error) {
    // Refused (another incarnation, unknown key): it may not have reached anything that runs our work.
    return { requested: true, acknowledged: false, stopped: false, detail: (error as Error).message };
  }
}

/** Cancels the engine's execution (cancelEngineExecution), then ends the run with `ending`. */
export async function cancelExternal(
  deps: ExternalRunDeps,
  loaded: LoadedExternalRun,
  ending: ExternalEnding | ((facts: CancelRecord | undefined) => ExternalEnding),
): Promise<void> {
  const { run, facts } = await cancelEngineExecution(deps, loaded);
  await endExternalRun(deps, run, typeof ending === 'function' ? ending(facts) : ending);
}

/**
 * What a failed run's error adds about its engine's execution: stopped, asked but not confirmed (it may
 * still run: the owner is told so in the run's error), or never asked (nothing admitted, or already ended).
 */
export function cancelNote(facts: CancelRecord | undefined): string {
  if (!facts) return '';
  if (facts.stopped) return "; the engine's execution was cancelled";
  const asked = facts.requested ? 'was asked to cancel' : 'could not be asked to cancel';
  const detail = facts.detail ? ` (${facts.detail.slice(0, 200)})` : '';
  return `; the engine's execution ${asked}${facts.acknowledged ? ' and acknowledged it' : ''} but did not confirm it stopped${detail}: it may still run`;
}
