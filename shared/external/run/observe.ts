/**
 * `ExternalObserve`: one observe of the execution, then what is next. Before observing, an owner's cancel
 * request or a passed run deadline cancels the engine's execution (cancel.ts). Answers:
 * - accepted, running, waiting: keep observing after the backoff (backoff.ts);
 * - unknown (no usable answer, a refusal to answer included): keep observing until
 *   `observe.unknownDeadlineSeconds` since the first unknown in a row, then the engine is asked to cancel the
 *   execution and the run ends stop reason `outcome_unknown` — the work may or may not have happened;
 * - terminal succeeded: `finish` (the artifact); failed / cancelled: the run ends so, with the summary;
 * - another incarnation: refused, never adopted — the run ends `failed` with the refusal recorded.
 * Each observe's record is written under the live policy (live-policy.ts: a condition on the workflow head, no
 * extra request): once the workflow is disabled, deleted or republished in mode `off`, the next observe cancels
 * the engine's execution (cancel.ts) and ends the run `denied`, stop reason `policy_denied`.
 */
import { cutText } from '../../core/byte-caps.ts';
import { isoAt } from '../../core/engine.ts';
import type { Observation } from '../contract.ts';
import { ExternalNotFoundError, IncarnationMismatchError } from '../errors.ts';
import { nextWaitSeconds } from './backoff.ts';
import { cancelExternal, cancelNote } from './cancel.ts';
import { underLivePolicy } from './live-policy.ts';
import type { ExternalNext, ExternalRunDeps } from './ports.ts';
import { deniedEnding, endExternalRun, externalAudit, loadExternalRun, updateExternal } from './records.ts';

export async function observeExternal(deps: ExternalRunDeps, runId: string): Promise<ExternalNext> {
  const loaded = await loadExternalRun(deps, runId);
  if (!loaded) return { runId, next: 'stop' };
  const { run, definition } = loaded;
  const nowMs = deps.clock.nowMs();
  const { key, incarnation } = run.external;
  if (run.external.cancelRequested) {
    await cancelExternal(deps, loaded, { status: 'cancelled', stopReason: 'cancelled' });
    return { runId, next: 'stop' };
  }
  if (nowMs >= Date.parse(run.deadlineAt)) {
    await cancelExternal(deps, loaded, {
      status: 'failed',
      stopReason: 'timeout',
      error: {
        name: 'RunTimedOut',
        message: `the run passed its deadline (${run.deadlineAt}) before the engine finished`,
      },
    });
    return { runId, next: 'stop' };
  }
  if (incarnation === undefined) throw new Error(`run ${runId}: observing before the engine admitted it`);
  let observation: Observation;
  try {
    observation = await deps.adapterFor(run, definition).observe(key, incarnation);
  } catch (error) {
    if (error instanceof IncarnationMismatchError || error instanceof ExternalNotFoundError) {
      // Nothing of ours left to cancel: the engine no longer holds the incarnation we started (a cancel
      // naming it is refused), and the recreated one is never adopted.
      const refusal =
        error instanceof IncarnationMismatchError
          ? { event: 'incarnation_refused', expected: error.expected, actual: error.actual }
          : { event: 'execution_lost', expected: incarnation };
      await endExternalRun(deps, run, {
        status: 'failed',
        stopReason: 'error',
        error: { name: error.name, message: cutText(error.message, 1000) },
        patch: { last: { state: refusal.event, at: isoAt(deps.clock), detail: cutText(error.message, 500) } },
        audit: [externalAudit(refusal.event, { key, ...refusal })],
      });
      return { runId, next: 'stop' };
    }
    throw error;
  }
  const last = {
    state: observation.state,
    at: isoAt(deps.clock),
    ...detailOf(observation),
  };
  const observes = run.external.observes + 1;
  if (observation.state === 'terminal') {
    const outcome = { outcome: observation.outcome, summary: cutText(observation.summary, 2000) };
    if (observation.outcome === 'succeeded') {
      const recorded = await underLivePolicy(deps.store, run, ({ patch, audit, condition }) =>
        updateExternal(
          deps,
          run,
          { ...patch, observes, last, outcome, unknownSince: undefined },
          { audit: [...audit, externalAudit('terminal', { key, ...outcome })], ...condition },
        ),
      );
      if (!recorded.allowed) {
        // Nothing left to cancel: the work is done, but nothing of it goes further.
        await endExternalRun(
          deps,
          run,
          deniedEnding(recorded.reason, { patch: { observes, last, outcome } }),
        );
        return { runId, next: 'stop' };
      }
      return { runId, next: 'finish' };
    }
    await endExternalRun(deps, run, {
      status: observation.outcome === 'failed' ? 'failed' : 'cancelled',
      stopReason: observation.outcome === 'failed' ? 'error' : 'cancelled',
      ...(observation.outcome === 'failed'
        ? { error: { name: 'ExternalExecutionFailed', message: cutText(outcome.summary, 1000) } }
        : {}),
      patch: { observes, last, outcome },
      audit: [externalAudit('terminal', { key, ...outcome })],
    });
    return { runId, next: 'stop' };
  }
  const unknown = observation.state === 'unknown';
  const unknownSince = unknown ? (run.external.unknownSince ?? last.at) : undefined;
  const unknownDeadlineMs = unknownSince
    ? Date.parse(unknownSince) + definition.observe.unknownDeadlineSeconds * 1000
    : undefined;
  if (unknownDeadlineMs !== undefined && nowMs >= unknownDeadlineMs) {
    // Not a failure: the engine stopped answering; the work may or may not have happened. It may still run:
    // the engine is asked to cancel it first (cancel.ts), and the error says whether that was confirmed.
    await cancelExternal(deps, loaded, (facts) => ({
      status: 'failed',
      stopReason: 'outcome_unknown',
      error: {
        name: 'OutcomeUnknown',
        message: `the engine gave no usable answer since ${unknownSince} (${last.detail ?? 'unknown'}); the work may or may not have happened${cancelNote(facts)}`,
      },
      patch: { observes, last, unknownSince },
      audit: [externalAudit('outcome_unknown', { key, unknownSince, cause: last.detail ?? null })],
    }));
    return { runId, next: 'stop' };
  }
  const waitSeconds = nextWaitSeconds({
    previousSeconds: run.external.intervalSeconds,
    initialSeconds: definition.observe.initialIntervalSeconds,
    maxSeconds: definition.observe.maxIntervalSeconds,
    // Start's capacity attempts share the execution's history with the observes (backoff.ts).
    observes: observes + (run.external.capacity?.attempts ?? 0),
    nowMs,
    deadlineMs: Date.parse(run.deadlineAt),
    unknownDeadlineMs,
  });
  const recorded = await underLivePolicy(deps.store, run, ({ patch, audit, condition }) =>
    updateExternal(
      deps,
      run,
      { ...patch, observes, last, intervalSeconds: waitSeconds, unknownSince },
      { audit, ...condition },
    ),
  );
  if (!recorded.allowed) {
    // The workflow was disabled, deleted or withdrawn while its work runs: stop the work, end the run denied.
    await cancelExternal(deps, loaded, deniedEnding(recorded.reason));
    return { runId, next: 'stop' };
  }
  return { runId, next: 'wait', waitSeconds };
}

function detailOf(observation: Observation): { detail?: string } {
  if (observation.state === 'unknown')
    return { detail: cutText(`${observation.cause}: ${observation.detail}`, 500) };
  if (observation.state === 'waiting') return { detail: observation.reason };
  if (observation.state === 'running' && observation.progress)
    return { detail: cutText(observation.progress, 500) };
  return {};
}
