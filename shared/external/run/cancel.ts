/**
 * Cancelling an external execution: the ledger row `external-cancel` is written `pending`, `adapter.cancel`
 * is called, and its three facts — requested, acknowledged, stopped — are recorded apart on the run, in the
 * settled row and in the audit chain. Then the run ends as the caller says: `cancelled` for an owner's cancel,
 * `failed`/`timeout` when the run's deadline passed, `denied`/`policy_denied` when its live policy no longer
 * allows it, `failed`/`outcome_unknown` when the engine stopped answering, `failed`/`error` when a step failed
 * for good (abandon.ts). A run never ends with its engine's execution left running unasked: when the engine
 * cannot be asked (Start got no answer and the key cannot be looked up) the run's facts and error say it may
 * still run. A retry finds the row settled and only ends the run.
 */
import { cutText } from '../../core/byte-caps.ts';
import { isoAt } from '../../core/engine.ts';
import type { AuditInput } from '../../core/store-port.ts';
import type { ExternalRun } from '../../schemas/external-run.ts';
import type { Run } from '../../schemas/run.ts';
import type { CancelFacts } from '../contract.ts';
import { ExternalRefusedError } from '../errors.ts';
import { type ByKey, findByKey } from './lookup.ts';
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
 * records the facts. Nothing is asked when nothing was sent (no `external-start` row), the engine refused the
 * start (the row settled), or it already reported the execution ended (`external.outcome`). A start that got
 * no usable answer (the row still `pending`, no incarnation) is looked up by its key first (lookup.ts): found,
 * that execution is asked; otherwise what was found is recorded, and "may run, not cancellable" said so. A
 * look-up that got no answer (`unanswered`) is not final: the next call looks again.
 * Answers the run as written and the facts.
 */
export async function cancelEngineExecution(
  deps: ExternalRunDeps,
  loaded: LoadedExternalRun,
): Promise<{ run: Run; facts: CancelRecord | undefined }> {
  let run: Run = loaded.run;
  const external = loaded.run.external;
  const at = () => isoAt(deps.clock);
  const { key } = external;
  const ledger = await deps.store.listLedger(run.runId);
  let row = ledger.find((candidate) => candidate.toolUseId === externalCallId('cancel'));
  const ended = external.outcome !== undefined;
  if (ended || (row && row.status !== 'pending')) return { run, facts: external.cancel };
  // Looked up before and nothing was asked (no row): those facts stand, except an unanswered look-up (a network
  // fault, a 5xx): a look-up is a read, so a later cancel or abandon (a step's retry) asks again.
  if (!row && external.cancel && external.cancel.byKey !== 'unanswered')
    return { run, facts: external.cancel };
  let incarnation = external.incarnation;
  let found: ByKey | undefined;
  if (incarnation === undefined) {
    const start = ledger.find((candidate) => candidate.toolUseId === externalCallId('start'));
    if (start?.status !== 'pending') return { run, facts: external.cancel };
    found = await findByKey(deps, loaded);
    if (found.byKey !== 'found') {
      // Nothing asked: no execution (not found), not ours, or the engine could not be asked (it may run).
      const facts: CancelRecord = {
        requested: false,
        acknowledged: false,
        stopped: false,
        detail: cutText(found.detail, 500),
        byKey: found.byKey,
        at: at(),
      };
      const written = await updateExternal(deps, run, { cancel: facts }, { audit: factAudit(key, facts) });
      return { run: written, facts };
    }
    incarnation = found.incarnation;
  }
  if (!row) {
    row = pendingCall(loaded.run, 'cancel', key, at());
    run = await updateExternal(deps, run, {}, { ledgerCreate: [row], audit: [dispatchAudit(row)] });
  }
  const answer = await askToCancel(deps, loaded, key, incarnation);
  const facts: CancelRecord = {
    requested: answer.requested,
    acknowledged: answer.acknowledged,
    stopped: answer.stopped,
    ...(answer.detail ? { detail: cutText(answer.detail, 500) } : {}),
    ...(found ? { byKey: found.byKey, incarnation } : {}),
    at: at(),
  };
  const settled = settledCall(row, facts, false, at());
  run = await updateExternal(
    deps,
    run,
    { cancel: facts },
    { ledgerSettle: [settled], audit: [settleAudit(settled), ...factAudit(key, facts)] },
  );
  return { run, facts };
}

/** Three facts, three entries: what was asked, what the engine took, what it says has stopped. */
function factAudit(key: string, facts: CancelRecord): AuditInput[] {
  const byKey = facts.byKey ? { byKey: facts.byKey } : {};
  return [
    ...(facts.byKey
      ? [externalAudit('execution_looked_up', { key, ...byKey, incarnation: facts.incarnation ?? null })]
      : []),
    externalAudit('cancel_requested', { key, requested: facts.requested }),
    externalAudit('cancel_acknowledged', { key, acknowledged: facts.acknowledged }),
    externalAudit('cancel_stopped', { key, stopped: facts.stopped }),
  ];
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
    // Refused by the engine (another incarnation, unknown key): it may not have reached anything that runs our
    // work. Refused on our side before it left (the same credential, the egress guard): never requested.
    const requested = !(error instanceof ExternalRefusedError && !error.sent);
    return { requested, acknowledged: false, stopped: false, detail: (error as Error).message };
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
  if (facts.byKey === 'not_found')
    return '; the engine never admitted the execution (start got no answer, and the engine does not know its key)';
  const asked = facts.requested ? 'was asked to cancel' : 'could not be asked to cancel';
  const detail = facts.detail ? ` (${cutText(facts.detail, 200)})` : '';
  return `; the engine's execution ${asked}${facts.acknowledged ? ' and acknowledged it' : ''} but did not confirm it stopped${detail}: it may still run`;
}
