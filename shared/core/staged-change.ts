/**
 * Writes that belong to the same moment, gathered into one transaction. A turn stages a step's writes
 * (the assistant message, a settled call, a refusal, an approval request) and the next commit that must
 * happen anyway carries them: one DynamoDB request instead of one per step. Staging never delays a write
 * that an invariant needs durable first: RunHandle.commit carries everything staged, and the turn commits
 * (or flushes) before every dispatch and before every model call.
 */
import type { Run } from '../schemas/run.ts';
import { valueBytes } from './item-size.ts';
import { roundUsd } from './pricing.ts';
import type { DaySpendChange, GraphSpendChange, RunChange } from './store-port.ts';

/** A change without its fence: what to write besides the run item, and how the run item moves. */
export type ChangePart = Omit<RunChange, 'run' | 'next'> & { next?: (run: Run) => Run };

/** Both parts as one: lists concatenated in order, `next` composed (first, then second). */
export function mergeParts(first: ChangePart, second: ChangePart): ChangePart {
  const daySpend = mergeDaySpend(first.daySpend, second.daySpend);
  const graphSpend = mergeGraphSpend(first.graphSpend, second.graphSpend);
  const nexts = [first.next, second.next].filter((next) => next !== undefined);
  const lists = {
    audit: [...(first.audit ?? []), ...(second.audit ?? [])],
    messages: [...(first.messages ?? []), ...(second.messages ?? [])],
    ledgerCreate: [...(first.ledgerCreate ?? []), ...(second.ledgerCreate ?? [])],
    ledgerSettle: [...(first.ledgerSettle ?? []), ...(second.ledgerSettle ?? [])],
    approvalCreate: [...(first.approvalCreate ?? []), ...(second.approvalCreate ?? [])],
    approvalUpdate: [...(first.approvalUpdate ?? []), ...(second.approvalUpdate ?? [])],
    steps: [...(first.steps ?? []), ...(second.steps ?? [])],
    humanTaskPut: [...(first.humanTaskPut ?? []), ...(second.humanTaskPut ?? [])],
  };
  const present = Object.fromEntries(Object.entries(lists).filter(([, list]) => list.length > 0));
  return {
    ...present,
    ...(daySpend ? { daySpend } : {}),
    ...(graphSpend ? { graphSpend } : {}),
    ...(first.reopen || second.reopen ? { reopen: true as const } : {}),
    // One head condition per write: the later part's (it was decided on the fresher read).
    ...(second.liveHead || first.liveHead ? { liveHead: (second.liveHead ?? first.liveHead)! } : {}),
    ...(second.headAt || first.headAt ? { headAt: (second.headAt ?? first.headAt)! } : {}),
    ...(nexts.length > 0 ? { next: (run: Run) => nexts.reduce((moved, next) => next(moved), run) } : {}),
  };
}

/**
 * True when the two parts can share one transaction: one day's counter and one graph run's counter at most,
 * and within the bound.
 */
export function canMerge(first: ChangePart, second: ChangePart): boolean {
  const [a, b] = [first.daySpend, second.daySpend];
  const [g, h] = [first.graphSpend, second.graphSpend];
  return (
    (!a || !b || sameDay(a, b)) && (!g || !h || g.graphRunId === h.graphRunId) && fitTogether(first, second)
  );
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

/** One update of a graph run's counter from two, guarded as `mergeDaySpend` guards the day's. */
function mergeGraphSpend(a?: GraphSpendChange, b?: GraphSpendChange): GraphSpendChange | undefined {
  if (!a || !b) return a ?? b;
  if (a.graphRunId !== b.graphRunId)
    throw new Error("two graph runs' spend changes cannot share a transaction");
  const limitUsd = b.limitUsd ?? a.limitUsd;
  return {
    graphRunId: a.graphRunId,
    deltaUsd: roundUsd(a.deltaUsd + b.deltaUsd),
    reservedDeltaUsd: roundUsd((a.reservedDeltaUsd ?? 0) + (b.reservedDeltaUsd ?? 0)),
    ...(limitUsd !== undefined ? { limitUsd } : {}),
  };
}

/** True when the part writes nothing and moves nothing. */
export const isEmptyPart = (part: ChangePart): boolean =>
  part.next === undefined && Object.keys(mergeParts(part, {})).length === 0;

/**
 * What a merged transaction may hold, with room for the run item (up to 400 KB) and the sealing of audit
 * entries: DynamoDB takes at most 100 items and 4 MB per TransactWriteItems
 * (https://docs.aws.amazon.com/amazondynamodb/latest/APIReference/API_TransactWriteItems.html). Writes that
 * would go past this are committed apart, as they were before they were merged; a single change past the
 * real limits still fails at once in the store (shared/store/transaction-limits.ts).
 */
export const MERGED_TRANSACTION_BOUND = { items: 80, bytes: 3 * 1024 * 1024 } as const;

/** Sealing adds seq, time, prevHash and hash to each audit entry: a generous bound. */
const AUDIT_SEAL_BYTES = 400;

/** An upper estimate of the items and bytes `part` adds to a transaction (the run item not included). */
export function partSize(part: ChangePart): { items: number; bytes: number } {
  let items = 0;
  let bytes = 0;
  for (const message of part.messages ?? []) {
    const size = valueBytes(message);
    items += Math.ceil((size + 1) / MESSAGE_PART_BYTES);
    bytes += size;
  }
  for (const row of [...(part.ledgerCreate ?? []), ...(part.ledgerSettle ?? [])]) {
    items += 1;
    bytes += valueBytes(row);
  }
  for (const record of [
    ...(part.approvalCreate ?? []),
    ...(part.approvalUpdate ?? []).map((update) => update.approval),
    ...(part.humanTaskPut ?? []).map((write) => write.task),
  ]) {
    items += 1;
    bytes += valueBytes(record);
  }
  for (const item of [...(part.steps ?? []), ...(part.humanTaskPut ?? [])]) {
    items += 1;
    bytes += valueBytes(item);
  }
  for (const entry of part.audit ?? []) {
    items += 1;
    bytes += valueBytes(entry) + AUDIT_SEAL_BYTES;
  }
  if (part.daySpend) items += 1;
  if (part.graphSpend) items += 1;
  if (part.liveHead) items += 1;
  if (part.headAt) items += 1;
  return { items, bytes };
}

/** The smallest a message part is filled to (shared/store/message-items.ts fills up to 380,000 bytes). */
const MESSAGE_PART_BYTES = 300_000;

/** True when `first` and `second` together stay within MERGED_TRANSACTION_BOUND. */
export function fitTogether(first: ChangePart, second: ChangePart): boolean {
  const a = partSize(first);
  const b = partSize(second);
  return (
    a.items + b.items + 1 <= MERGED_TRANSACTION_BOUND.items &&
    a.bytes + b.bytes <= MERGED_TRANSACTION_BOUND.bytes
  );
}
