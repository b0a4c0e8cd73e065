/**
 * The pending-runs sweep, a step of the scheduled jobs sweep (functions/jobs-sweep.ts): settles runs started by
 * the API, a schedule or an event that nothing else will settle. Such a start creates its run `pending` (with
 * turn 0's reservation, on the day's counter too) and then starts its execution; a crash in between, or a start
 * whose outcome nothing could tell (docs/api.md), leaves the run `pending`. With an Idempotency-Key a repeat of
 * the request would start it, but a caller that crashed or gave up never repeats it; a schedule's or an event's
 * run is started again only by a retry of its trigger (Lambda's two retries of start-run, then a redrive from the
 * trigger dead-letter queue, if anyone redrives it: docs/event-triggers.md). So all of them are settled the same
 * way (a repeat, retry or redrive after that answers the ended run). Such runs carry a marker
 * (shared/store/pending-runs.ts) until they leave `pending`. For each run still pending past `minAgeMs`, the
 * sweep asks Step Functions whether its execution, named after the run, exists: if not, the run is ended
 * `failed` (`ExecutionNotStarted`) with its reservation given back, as the API does for a refused start
 * (start-run.ts, endUnstarted); if it does, the run is its execution's, and the marker goes. Bounded by a time
 * budget; what it could not decide stays for the next sweep.
 */
import type { Clock } from '../core/ports.ts';
import type { Run } from '../schemas/run.ts';
import type { DynamoStore } from '../store/index.ts';
import { hourOf, type PendingRunMarker } from '../store/pending-runs.ts';
import type { ExecutionsPort } from './ports.ts';
import { endUnstarted } from './start-run.ts';

export const PENDING_SWEEP_LIMITS = {
  /**
   * A run pending this long is looked at. An API start tries StartExecution three times within seconds; a
   * schedule's or an event's start-run is tried three times within about three minutes (Lambda retries a failed
   * asynchronous invocation after one minute, then after two more:
   * https://docs.aws.amazon.com/lambda/latest/dg/invocation-async-error-handling.html; an attempt Lambda
   * throttles is tried again for up to six hours, and one that comes after the sweep finds the run ended). Ten
   * minutes also lets DescribeExecution, which is eventually consistent ("may not reflect very recent updates":
   * https://docs.aws.amazon.com/step-functions/latest/apireference/API_DescribeExecution.html), see an
   * execution that did start.
   */
  minAgeMs: 10 * 60_000,
  /** Hour buckets looked at, back from now: a run no sweep could decide for a day is left (and logged until then). */
  lookbackHours: 24,
  /** The sweep stops starting work on a run after this long; the rest waits for the next minute's sweep. */
  budgetMs: 5_000,
} as const;

export type PendingSweepLimits = { minAgeMs: number; lookbackHours: number; budgetMs: number };

export type PendingSweepDeps = {
  store: Pick<
    DynamoStore,
    'listPendingRunMarkers' | 'deletePendingRunMarker' | 'getRun' | 'commit' | 'anchorRunHead'
  >;
  executions: Pick<ExecutionsPort, 'arnOf' | 'exists'>;
  clock: Clock;
};

/** What one sweep did, by run id. */
export type PendingSweep = {
  /** Ended `failed` (ExecutionNotStarted), their reservations given back: no execution exists. */
  settled: string[];
  /** Their execution exists: the marker removed, the run left to it. */
  started: string[];
  /** Left pending by themselves meanwhile (a cancel, their first turn): their commit removed the marker. */
  moved: string[];
  /** Nothing could say whether their execution exists (DescribeExecution failed): looked at again next time. */
  undecided: { runId: string; reason: string }[];
  /** False when the time budget ran out before every bucket was looked at. */
  complete: boolean;
};

/** The hour buckets (oldest first) that can hold runs created between `fromMs` and `toMs`. */
export function hoursBetween(fromMs: number, toMs: number): string[] {
  const hours: string[] = [];
  const HOUR = 3_600_000;
  for (let at = Math.floor(fromMs / HOUR) * HOUR; at <= toMs; at += HOUR)
    hours.push(hourOf(new Date(at).toISOString()));
  return hours;
}

/** Settles the markers of runs pending past `minAgeMs`, oldest first, within `budgetMs`. */
export async function sweepPendingRuns(
  deps: PendingSweepDeps,
  limits: PendingSweepLimits = PENDING_SWEEP_LIMITS,
): Promise<PendingSweep> {
  const began = deps.clock.nowMs();
  const overBudget = () => deps.clock.nowMs() - began >= limits.budgetMs;
  const cutoffMs = began - limits.minAgeMs;
  const cutoff = new Date(cutoffMs).toISOString();
  const swept: PendingSweep = { settled: [], started: [], moved: [], undecided: [], complete: true };
  for (const hour of hoursBetween(cutoffMs - limits.lookbackHours * 3_600_000, cutoffMs)) {
    if (overBudget()) return { ...swept, complete: false };
    for (const marker of await deps.store.listPendingRunMarkers(hour, cutoff)) {
      if (overBudget()) return { ...swept, complete: false };
      try {
        const outcome = await settlePendingRun(deps, marker);
        if (outcome === 'undecided')
          swept.undecided.push({ runId: marker.runId, reason: 'the execution could not be described' });
        else swept[outcome].push(marker.runId);
      } catch (error) {
        swept.undecided.push({ runId: marker.runId, reason: String((error as Error)?.name ?? error) });
      }
    }
  }
  return swept;
}

type Outcome = 'settled' | 'started' | 'moved' | 'undecided';

async function settlePendingRun(deps: PendingSweepDeps, marker: PendingRunMarker): Promise<Outcome> {
  const run = await deps.store.getRun(marker.runId);
  // A marker leaves with the run's move out of pending; one still here for a run that moved is only removed.
  if (run?.status !== 'pending') {
    await deps.store.deletePendingRunMarker(marker);
    return 'moved';
  }
  const arn = deps.executions.arnOf?.(run.kind, run.runId);
  const exists =
    arn && deps.executions.exists ? await deps.executions.exists(arn).catch(() => undefined) : undefined;
  if (exists === undefined) return 'undecided';
  if (exists) {
    await deps.store.deletePendingRunMarker(marker);
    return 'started';
  }
  return (await endUnstarted(deps, run, notFound(run, deps.clock))) ? 'settled' : 'moved';
}

/** The cause recorded on the run (its `error.message` names it). */
function notFound(run: Run, clock: Clock): Error {
  const minutes = Math.floor((clock.nowMs() - Date.parse(run.createdAt)) / 60_000);
  const error = new Error(`no execution of the run exists ${minutes} minutes after it was created`);
  error.name = 'ExecutionDoesNotExist';
  return error;
}
