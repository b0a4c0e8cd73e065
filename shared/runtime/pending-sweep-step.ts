/**
 * The pending-runs step of the jobs sweep's Lambda (functions/jobs-sweep.ts): runs the sweep
 * (shared/runs/pending-sweep.ts), logs what it settled and what stayed undecided, and counts both as metrics
 * (EMF, infra/constructs/metric-names.ts). A fault is logged, never thrown: the jobs step runs all the same. A
 * sweep that failed as a whole (its Query denied or throttled, a marker it cannot read) counts one undecided
 * run: it decided nothing, and the alarm on `PendingRunsUndecided` must see a sweep that keeps failing.
 */
import { cutText } from '../core/byte-caps.ts';
import { type PendingSweepDeps, sweepPendingRuns } from '../runs/pending-sweep.ts';
import { recordPoints, type Telemetry } from './telemetry.ts';

/** At most this many run ids per list on a log line; the counts are whole. */
const LOGGED_IDS = 20;

export async function pendingRunsStep(deps: PendingSweepDeps, telemetry: Telemetry): Promise<void> {
  const { logger, metrics } = telemetry;
  try {
    const swept = await sweepPendingRuns(deps);
    recordPoints(metrics, [
      { name: 'PendingRunsSettled', value: swept.settled.length },
      { name: 'PendingRunsUndecided', value: swept.undecided.length },
    ]);
    const looked = swept.settled.length + swept.started.length + swept.moved.length + swept.undecided.length;
    if (looked === 0 && swept.complete) return;
    const summary = {
      settled: swept.settled.length,
      started: swept.started.length,
      moved: swept.moved.length,
      undecided: swept.undecided.length,
      complete: swept.complete,
      settledRunIds: swept.settled.slice(0, LOGGED_IDS),
      undecidedRuns: swept.undecided.slice(0, LOGGED_IDS),
    };
    if (swept.undecided.length > 0) logger.warn('pending runs swept, some undecided', summary);
    else logger.info('pending runs swept', summary);
  } catch (error) {
    const { name, message } = error instanceof Error ? error : { name: 'Error', message: String(error) };
    logger.error('pending runs not swept', { error: { name, message: cutText(message, 500) } });
    recordPoints(metrics, [{ name: 'PendingRunsUndecided', value: 1 }]);
  } finally {
    // An observed store's run reads put the run's id and owner on the log lines: none may reach the jobs step's.
    logger.removeKeys(['runId', 'owner']);
  }
}
