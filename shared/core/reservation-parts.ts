/**
 * The writes of a reservation as parts of a transaction (staged-change.ts): made (now, or ahead by the
 * previous turn's commit: attempt.ts), given back, or counted as spent. budget.ts decides when.
 * A reservation is counted on up to two spend counters besides its run: the workflow's day (`maxUsdPerDay`)
 * and, for a graph step's child run, its graph run's (the graph's `maxUsdPerRun`, all children together).
 */
import type { Budget } from '../schemas/budget.ts';
import type { Run } from '../schemas/run.ts';
import { executionNameOf, type TurnAttempt, unusedAheadReservation } from './attempt.ts';
import { roundUsd } from './pricing.ts';
import type { ChangePart } from './staged-change.ts';
import type { AuditInput, DaySpendChange, GraphSpendChange } from './store-port.ts';

type ReservationSpec = {
  turn: number;
  usd: number;
  day: string;
  waitedMs?: number;
  /** Made ahead by the previous turn's commit, in this execution (attempt.ts). */
  executionId?: string;
  /** Made ahead by the run's creation, for its first execution, of this name (first-reservation.ts). */
  executionName?: string;
};

/**
 * The writes of a reservation for the model call of `turn`: the run holds it, the day's counter counts it
 * (conditionally: the day's ceiling), and the audit records it. With `executionId` it is made ahead, by the
 * previous turn's commit (attempt.ts).
 */
export function reservationPart(run: Run, budget: Budget, spec: ReservationSpec): ChangePart {
  const { turn, usd, day, waitedMs = 0, executionId, executionName } = spec;
  const daily = budget.maxUsdPerDay !== undefined;
  // A graph child counts on its graph run's counter, conditionally: all the graph's children together stay
  // under the graph's ceiling, including children reserving at the same time (one conditional ADD each).
  const graphCeiling = run.parent?.maxUsdPerRun;
  const graph = run.parent !== undefined && graphCeiling !== undefined;
  // Held by the execution's name, not its ARN (~60–90 bytes fewer on the run item, which every commit rewrites:
  // docs/data-model.md "Run item size"). The reservation is made and spent by Turn states of the one run state
  // machine, whose execution names are unique (API_StartExecution), so the name says which execution as the ARN
  // does (attempt.ts isExecutionNamed). `executionId: ''` keeps the form the previous release parses.
  const name = executionId ? executionNameOf(executionId) : executionName;
  const ahead = name ? { executionName: name, executionId: '' as const } : undefined;
  return {
    next: (current) => ({
      ...current,
      reservation: { turn, usd, day, daily, ...(graph ? { graph } : {}), ...(ahead ? { ahead } : {}) },
    }),
    ...(daily
      ? {
          daySpend: {
            owner: run.owner,
            workflowId: run.workflowId,
            day,
            deltaUsd: usd,
            reservedDeltaUsd: usd,
            limitUsd: budget.maxUsdPerDay!,
          },
        }
      : {}),
    ...(graph
      ? {
          graphSpend: {
            graphRunId: run.parent!.runId,
            deltaUsd: usd,
            reservedDeltaUsd: usd,
            limitUsd: graphCeiling,
          },
        }
      : {}),
    audit: [
      {
        type: 'budget_reserved',
        actor: 'system',
        data: {
          turn,
          usd,
          spentUsd: run.costUsd,
          ceilingUsd: budget.maxUsdPerRun,
          ...(graph ? { graphCeilingUsd: graphCeiling } : {}),
          ...(waitedMs > 0 ? { waitedMs } : {}),
          ...(ahead ? { ahead: true } : {}),
          ...(executionName ? { atCreation: true } : {}),
        },
      },
    ],
  };
}

/**
 * The writes that give back a reservation in full: the run no longer holds it and the day's counter drops it.
 * Only for a reservation no call can have used (refused before any output, or made ahead and never spent).
 */
export function releasePart(
  run: Run,
  held: NonNullable<Run['reservation']>,
  data: Record<string, unknown>,
): ChangePart {
  return {
    ...counterChanges(run, held, -held.usd, -held.usd),
    next: (current) => ({ ...current, reservation: undefined }),
    audit: [
      {
        type: 'budget_settled',
        actor: 'system',
        data: { turn: held.turn, reservedUsd: held.usd, actualUsd: 0, ...data },
      },
    ],
  };
}

/**
 * What becomes of the reservation still outstanding when a turn reserves again or the run ends: one made ahead
 * that this invocation knows no call used is given back (attempt.ts); any other may have paid for a call and
 * is counted as spent (see `unsettledSpend`). Nothing when none is outstanding.
 */
export function outstandingReservationPart(run: Run, attempt?: TurnAttempt): ChangePart {
  const unused = unusedAheadReservation(run, attempt);
  if (unused) return releasePart(run, unused, { unused: true });
  const spend = unsettledSpend(run);
  if (!spend) return {};
  return {
    ...(spend.daySpend ? { daySpend: spend.daySpend } : {}),
    ...(spend.graphSpend ? { graphSpend: spend.graphSpend } : {}),
    next: (current) => ({
      ...current,
      costUsd: roundUsd(current.costUsd + spend.costUsd),
      reservation: undefined,
    }),
    audit: unsettledAudit(run),
  };
}

/**
 * A reservation still outstanding when its turn is tried again or its run ends: the call it was made for
 * may have been sent and paid (a crash after the provider answered), so it is counted as spent in full.
 * The day keeps it as spend (no longer as a reservation) and the run's cost includes it.
 */
export function unsettledSpend(run: Run): ({ costUsd: number } & SpendCounterChanges) | undefined {
  const held = run.reservation;
  if (!held) return undefined;
  return { costUsd: held.usd, ...counterChanges(run, held, 0, -held.usd) };
}

/** The changes of the spend counters a reservation is counted on. */
export type SpendCounterChanges = { daySpend?: DaySpendChange; graphSpend?: GraphSpendChange };

/**
 * The changes of the counters `held` is counted on (`daily`: the workflow's day; `graph`: the graph run's),
 * unconditional: `deltaUsd` of the total, `reservedDeltaUsd` of its reserved part.
 */
export function counterChanges(
  run: Run,
  held: Pick<NonNullable<Run['reservation']>, 'day' | 'daily' | 'graph'>,
  deltaUsd: number,
  reservedDeltaUsd: number,
): SpendCounterChanges {
  const { owner, workflowId } = run;
  return {
    ...(held.daily ? { daySpend: { owner, workflowId, day: held.day, deltaUsd, reservedDeltaUsd } } : {}),
    ...(held.graph && run.parent
      ? { graphSpend: { graphRunId: run.parent.runId, deltaUsd, reservedDeltaUsd } }
      : {}),
  };
}

/** The audit entry recording an unsettled reservation as spent (none when nothing is outstanding). */
export function unsettledAudit(run: Run): AuditInput[] {
  const held = run.reservation;
  if (!held) return [];
  return [
    {
      type: 'budget_settled',
      actor: 'system',
      data: { turn: held.turn, reservedUsd: held.usd, actualUsd: held.usd, unsettled: true },
    },
  ];
}
