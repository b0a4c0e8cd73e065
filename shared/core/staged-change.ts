/**
 * Writes that belong to the same moment, gathered into one transaction. A turn stages a step's writes
 * (the assistant message, a settled call, a refusal, an approval request) and the next commit that must
 * happen anyway carries them: one DynamoDB request instead of one per step. Staging never delays a write
 * that an invariant needs durable first: RunHandle.commit carries everything staged, and the turn commits
 * (or flushes) before every dispatch and before every model call.
 */
import type { Run } from '../schemas/run.ts';
import { roundUsd } from './pricing.ts';
import type { DaySpendChange, RunChange } from './store-port.ts';

/** A change without its fence: what to write besides the run item, and how the run item moves. */
export type ChangePart = Omit<RunChange, 'run' | 'next'> & { next?: (run: Run) => Run };

/** Both parts as one: lists concatenated in order, `next` composed (first, then second). */
export function mergeParts(first: ChangePart, second: ChangePart): ChangePart {
  const daySpend = mergeDaySpend(first.daySpend, second.daySpend);
  const nexts = [first.next, second.next].filter((next) => next !== undefined);
  const lists = {
    audit: [...(first.audit ?? []), ...(second.audit ?? [])],
    messages: [...(first.messages ?? []), ...(second.messages ?? [])],
    ledgerCreate: [...(first.ledgerCreate ?? []), ...(second.ledgerCreate ?? [])],
    ledgerSettle: [...(first.ledgerSettle ?? []), ...(second.ledgerSettle ?? [])],
    approvalCreate: [...(first.approvalCreate ?? []), ...(second.approvalCreate ?? [])],
    approvalUpdate: [...(first.approvalUpdate ?? []), ...(second.approvalUpdate ?? [])],
  };
  const present = Object.fromEntries(Object.entries(lists).filter(([, list]) => list.length > 0));
  return {
    ...present,
    ...(daySpend ? { daySpend } : {}),
    ...(nexts.length > 0 ? { next: (run: Run) => nexts.reduce((moved, next) => next(moved), run) } : {}),
  };
}

/** True when the two parts can share one transaction (see `mergeDaySpend`). */
export function canMerge(first: ChangePart, second: ChangePart): boolean {
  const [a, b] = [first.daySpend, second.daySpend];
  return !a || !b || sameDay(a, b);
}

const sameDay = (a: DaySpendChange, b: DaySpendChange) =>
  a.owner === b.owner && a.workflowId === b.workflowId && a.day === b.day;

/**
 * One update of the day's counter from two (a transaction may touch an item once). The guard of the merged
 * update is the guard of the later one over the sum: "the day after both ≤ limit", the same condition the
 * two updates in sequence would have checked. Different days never merge (`canMerge`).
 */
function mergeDaySpend(a?: DaySpendChange, b?: DaySpendChange): DaySpendChange | undefined {
  if (!a || !b) return a ?? b;
  if (!sameDay(a, b)) throw new Error('day-spend changes of different days cannot share a transaction');
  const limitUsd = b.limitUsd ?? a.limitUsd;
  return {
    owner: a.owner,
    workflowId: a.workflowId,
    day: a.day,
    deltaUsd: roundUsd(a.deltaUsd + b.deltaUsd),
    reservedDeltaUsd: roundUsd((a.reservedDeltaUsd ?? 0) + (b.reservedDeltaUsd ?? 0)),
    ...(limitUsd !== undefined ? { limitUsd } : {}),
  };
}

/** True when the part writes nothing and moves nothing. */
export const isEmptyPart = (part: ChangePart): boolean =>
  part.next === undefined && Object.keys(mergeParts(part, {})).length === 0;
