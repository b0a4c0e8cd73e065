/**
 * PutItem, UpdateItem and ConditionCheckItem are granted per partition to the functions whose writes stay in a
 * few partition kinds (infra/constructs/table-access.ts WRITE_PARTITIONS): a `ForAllValues:StringLike`
 * condition on `dynamodb:LeadingKeys`, the partition key values of the request, for a PutItem the new item's
 * (https://docs.aws.amazon.com/amazondynamodb/latest/developerguide/specifying-conditions.html), with
 * `Null: false` so a request without the key is not let through by `ForAllValues`
 * (https://docs.aws.amazon.com/IAM/latest/UserGuide/reference_policies_condition-single-vs-multi-valued-context-keys.html).
 * A part of TransactWriteItems is authorized as the action of its kind on its own item
 * (https://docs.aws.amazon.com/amazondynamodb/latest/developerguide/transaction-apis-iam.html), so each part of
 * a run commit is held to the list. The unauthenticated approval pages (the signed link is the credential) may
 * write a run's items and approvals, and nothing of an owner's partition (workflows, chains), grants, triggers,
 * spend or idempotency markers. Evaluated with iam-simulate on the synthesized template; every recorded write of
 * these functions stays in its list (recorded-calls.test.ts).
 */
import { describe, expect, it } from 'vitest';
import type { HandlerName } from '../../infra/constructs/state-names.ts';
import {
  PARTITIONED_WRITES,
  type PartitionedWrite,
  TABLE_ACCESS,
  WRITE_PARTITIONS,
} from '../../infra/constructs/table-access.ts';
import { jobKeys } from '../../shared/jobs/records.ts';
import { keys } from '../../shared/store/keys.ts';
import { triggerIndexKey } from '../../shared/store/trigger-index.ts';
import { tableItemDecisions } from './table-item-decisions.ts';

const OWNER = '123456789012:user:alice';
const RUN = 'run_0123456789abcdef0123456789abcdef';
const CREATED = '2026-12-03T10:15:00.000Z';

/** One partition of each kind the table holds, from the key builders the code writes with. */
const PARTITION = {
  run: keys.run(RUN).pk,
  approval: keys.approval('apr_1').pk,
  owner: keys.workflowHead(OWNER, 'wf_1').pk,
  daySpend: keys.daySpend(OWNER, 'wf_1', '2026-12-03').pk,
  idempotency: keys.idempotency(OWNER, 'start', 'k').pk,
  pendingRun: keys.pendingRun(CREATED, RUN).pk,
  trigger: triggerIndexKey('schedule', OWNER, 'wf_1').pk,
  grant: jobKeys.slots('grant_1').pk,
  grantHead: jobKeys.grantHead(OWNER, 'client_1').pk,
  sweepCursor: jobKeys.sweepCursor().pk,
} as const;
type Kind = keyof typeof PARTITION;

const PUT = 'dynamodb:PutItem';
const UPDATE = 'dynamodb:UpdateItem';
const CHECK = 'dynamodb:ConditionCheckItem';

/** What each scoped function writes (the items its code writes: table-access.ts), per action. */
const EXPECTED: Record<string, Partial<Record<PartitionedWrite, readonly Kind[]>>> = {
  // Every function that commits a run updates its item and settles ledger rows with Updates (run-update.ts).
  'approval-http': { [PUT]: ['run', 'approval'], [UPDATE]: ['run'], [CHECK]: ['owner'] },
  'request-approval': { [PUT]: ['run', 'approval'], [UPDATE]: ['run'] },
  expire: { [PUT]: ['run', 'approval'], [UPDATE]: ['run'] },
  'human-task': { [PUT]: ['run'], [UPDATE]: ['run'] },
  'start-run': { [PUT]: ['run', 'idempotency', 'pendingRun'], [UPDATE]: ['run', 'daySpend'] },
  'graph-wait': { [PUT]: ['run'], [UPDATE]: ['run', 'daySpend'] },
  'graph-advance': { [PUT]: ['run'], [UPDATE]: ['run'] },
  'graph-service': { [PUT]: ['run', 'approval'], [UPDATE]: ['run'], [CHECK]: ['owner'] },
  turn: { [PUT]: ['run', 'approval'], [UPDATE]: ['run', 'daySpend'], [CHECK]: ['owner'] },
  deliver: { [PUT]: ['run', 'owner'], [UPDATE]: ['run'], [CHECK]: ['owner'] },
  'mark-failed': { [PUT]: ['run', 'owner'], [UPDATE]: ['run', 'daySpend'], [CHECK]: ['owner'] },
  external: { [PUT]: ['run', 'owner'], [UPDATE]: ['run'], [CHECK]: ['owner'] },
  'workflow-write': { [PUT]: ['owner', 'trigger'], [CHECK]: ['owner'] },
};
const SCOPED = Object.keys(EXPECTED) as HandlerName[];

const writeAs = tableItemDecisions();

/** Each (function, action) it sends, with the kinds of partition it may write in with it. */
const CASES = SCOPED.flatMap((fn) =>
  PARTITIONED_WRITES.filter((action) => TABLE_ACCESS[fn].includes(action)).map(
    (action) => [fn, action, EXPECTED[fn]?.[action] ?? []] as const,
  ),
);

describe('item writes scoped to partitions', () => {
  it('names the partitions of every item write of the scoped functions, as reviewed here', () => {
    expect(Object.keys(WRITE_PARTITIONS).sort()).toEqual([...SCOPED].sort());
    for (const fn of SCOPED)
      for (const action of PARTITIONED_WRITES)
        expect({ fn, action, scoped: WRITE_PARTITIONS[fn]?.[action] !== undefined }).toEqual({
          fn,
          action,
          scoped: TABLE_ACCESS[fn].includes(action),
        });
  });

  it.each(CASES)(
    'lets %s send %s in the partitions it writes in, and in no other',
    async (fn, action, kinds) => {
      expect(kinds.length).toBeGreaterThan(0);
      for (const kind of Object.keys(PARTITION) as Kind[])
        expect({ kind, decision: await writeAs(fn, action, [PARTITION[kind]]) }).toEqual({
          kind,
          decision: kinds.includes(kind) ? 'Allowed' : 'ImplicitlyDenied',
        });
    },
  );

  it("denies the approval pages a write in an owner's partition: a workflow head, a name claim, an anchor, a signed head", async () => {
    for (const key of [
      keys.workflowHead(OWNER, 'wf_1'),
      keys.workflowName(OWNER, 'nightly'),
      keys.ownerAnchorHead(OWNER),
      keys.signedHead(OWNER, 1, 1),
      keys.ownerChangeHead(OWNER),
    ])
      expect({ key, decision: await writeAs('approval-http', PUT, [key.pk]) }).toEqual({
        key,
        decision: 'ImplicitlyDenied',
      });
  });

  it('denies a write naming one partition outside the scope among others, and one naming none', async () => {
    expect(await writeAs('approval-http', PUT, [PARTITION.run, PARTITION.owner])).toBe('ImplicitlyDenied');
    // `ForAllValues` alone is true of a request without the key (`Null: false` requires it).
    for (const [fn, action] of CASES)
      expect({ fn, action, decision: await writeAs(fn, action) }).toEqual({
        fn,
        action,
        decision: 'ImplicitlyDenied',
      });
  });

  it("allows a write in another run's partition: the sort key and the run's owner are no condition keys (the residual)", async () => {
    // Owner isolation of runs is the code's (each write follows a read of the run it names); IAM cannot say it.
    const other = keys.run('run_ffffffffffffffffffffffffffffffff').pk;
    expect(await writeAs('approval-http', PUT, [other])).toBe('Allowed');
  });
});
