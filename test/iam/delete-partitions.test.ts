/**
 * DeleteItem is granted per partition (infra/constructs/table-access.ts DELETE_PARTITIONS): a
 * `ForAllValues:StringLike` condition on `dynamodb:LeadingKeys`, the partition key values of the request
 * (https://docs.aws.amazon.com/amazondynamodb/latest/developerguide/specifying-conditions.html), with `Null: false`
 * so a request without the key is not let through by `ForAllValues`. A Delete inside TransactWriteItems is
 * authorized as a DeleteItem of its own item
 * (https://docs.aws.amazon.com/amazondynamodb/latest/developerguide/transaction-apis-iam.html): Turn's first commit
 * may drop its run's pending-run marker, and nothing else. Evaluated with iam-simulate on the synthesized template;
 * the recorded calls (recorded-calls.test.ts) carry their partition keys, so the conditions are evaluated there too.
 */
import { describe, expect, it } from 'vitest';
import type { HandlerName } from '../../infra/constructs/state-names.ts';
import { DELETE_PARTITIONS, TABLE_ACCESS } from '../../infra/constructs/table-access.ts';
import { jobKeys } from '../../shared/jobs/records.ts';
import { keys } from '../../shared/store/keys.ts';
import { triggerIndexKey } from '../../shared/store/trigger-index.ts';
import { tableItemDecisions } from './table-item-decisions.ts';

const OWNER = '123456789012:user:alice';
const RUN = 'run_0123456789abcdef0123456789abcdef';
const CREATED = '2026-12-03T10:15:00.000Z';

/** The partition each deleted item kind lives in, from the key builders the code deletes with. */
const DELETED = {
  pendingRun: keys.pendingRun(CREATED, RUN).pk,
  pendingAnchor: keys.ownerAnchorPending(OWNER, RUN).pk,
  workflowName: keys.workflowName(OWNER, 'nightly').pk,
  triggerEntry: triggerIndexKey('schedule', OWNER, 'wf_1').pk,
  queued: jobKeys.queued('grant_1', 1).pk,
  legacyGrantHead: jobKeys.legacyGrantHead('client_1').pk,
} as const;

/** Partitions no function deletes in: a run's items, an approval, a day's spend, an idempotency marker. */
const NEVER_DELETED = [
  keys.run(RUN).pk,
  keys.approval('apr_1').pk,
  keys.daySpend(OWNER, 'wf_1', '2026-12-03').pk,
  keys.idempotency(OWNER, 'start', 'k').pk,
];

const decideItem = tableItemDecisions();
const deleteAs = (fn: HandlerName, leadingKeys?: string[]) =>
  decideItem(fn, 'dynamodb:DeleteItem', leadingKeys);

const DELETERS = (Object.keys(TABLE_ACCESS) as HandlerName[]).filter((fn) =>
  TABLE_ACCESS[fn].includes('dynamodb:DeleteItem'),
);

describe('DeleteItem scoped to partitions', () => {
  it('names the partitions of every function that may delete, and of no other', () => {
    expect(Object.keys(DELETE_PARTITIONS).sort()).toEqual([...DELETERS].sort());
  });

  it.each([
    ['turn', ['pendingRun']],
    ['graph-advance', ['pendingRun']],
    ['mark-failed', ['pendingRun', 'pendingAnchor']],
    ['external', ['pendingRun', 'pendingAnchor']],
    ['deliver', ['pendingAnchor']],
    ['api', ['pendingRun', 'pendingAnchor', 'workflowName', 'triggerEntry', 'queued', 'legacyGrantHead']],
    ['workflow-write', ['triggerEntry']],
    ['jobs-sweep', ['pendingRun', 'pendingAnchor', 'queued']],
    ['mcp', ['pendingAnchor', 'queued']],
  ] as const)('lets %s delete in the partitions it deletes in: %j', async (fn, kinds) => {
    for (const kind of kinds)
      expect({ kind, decision: await deleteAs(fn, [DELETED[kind]]) }).toEqual({ kind, decision: 'Allowed' });
  });

  it("denies Turn's and GraphAdvance's delete of an owner's workflow item, a run's item or a trigger entry", async () => {
    const elsewhere = [
      keys.workflowHead(OWNER, 'wf_1').pk,
      keys.workflowName(OWNER, 'nightly').pk,
      keys.message(RUN, 1).pk,
      DELETED.triggerEntry,
      DELETED.queued,
    ];
    for (const fn of ['turn', 'graph-advance'] as const)
      for (const partition of elsewhere)
        expect({ fn, partition, decision: await deleteAs(fn, [partition]) }).toEqual({
          fn,
          partition,
          decision: 'ImplicitlyDenied',
        });
  });

  it.each(DELETERS)('denies %s a delete in a partition no function deletes in', async (fn) => {
    for (const partition of NEVER_DELETED)
      expect({ partition, decision: await deleteAs(fn, [partition]) }).toEqual({
        partition,
        decision: 'ImplicitlyDenied',
      });
  });

  it('denies a delete naming one partition outside the scope among others, and one naming none', async () => {
    expect(await deleteAs('turn', [DELETED.pendingRun, keys.run(RUN).pk])).toBe('ImplicitlyDenied');
    // `ForAllValues` alone is true of a request without the key (`Null: false` requires it).
    expect(await deleteAs('turn')).toBe('ImplicitlyDenied');
  });
});
