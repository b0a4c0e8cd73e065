/**
 * A trigger index write is a transaction with a ConditionCheck on the workflow head, an item that run commits
 * (the live policy) and head changes also touch; a transaction in flight on it cancels the index write with
 * `TransactionConflict` and nothing written. The write is sent again after a jittered backoff instead of failing
 * the sync (a 502 for a workflow change that committed). The conflicts are injected in front of DynamoDB
 * Local; the backoff is observed, not waited for.
 */
import { TransactionCanceledException } from '@aws-sdk/client-dynamodb';
import { beforeEach, describe, expect, it, vi } from 'vitest';
import type { WorkflowHead } from '../../shared/schemas/workflow-record.ts';
import { localTriggerSync, TriggerSyncError } from '../../shared/triggers-sync/index.ts';
import type { TriggerSyncRequest } from '../../shared/triggers-sync/port.ts';
import { minimalWorkflow, seedWorkflow, testStore } from '../support/store.ts';

const waits = vi.hoisted(() => [] as number[]);
vi.mock('../../shared/store/backoff.ts', () => ({
  backOff: async (attempt: number) => {
    waits.push(attempt);
  },
}));

const store = testStore();
const sync = localTriggerSync(store);
const schedule = { type: 'schedule', expression: 'rate(5 minutes)', timezone: 'UTC' } as const;
let conflictsLeft = 0;
let transactions = 0;
store.ctx.doc.middlewareStack.add(
  (next, context) => async (args) => {
    if (context.commandName !== 'TransactWriteItemsCommand') return next(args);
    transactions++;
    if (conflictsLeft === 0) return next(args);
    conflictsLeft--;
    throw new TransactionCanceledException({
      message: 'Transaction cancelled, please refer cancellation reasons for specific reasons',
      $metadata: {},
      CancellationReasons: [{ Code: 'None' }, { Code: 'None' }, { Code: 'TransactionConflict' }],
    });
  },
  { step: 'initialize', name: 'injectTransactionConflicts' },
);

beforeEach(() => {
  waits.length = 0;
  conflictsLeft = 0;
  transactions = 0;
});

const requestOf = (head: WorkflowHead): TriggerSyncRequest => ({
  owner: head.owner,
  workflowId: head.workflowId,
  name: head.name,
  enabled: head.enabled,
  deleted: head.deleted,
  trigger: schedule,
  rev: head.rev ?? 0,
});

const indexed = async (head: WorkflowHead) =>
  (await store.listTriggerIndex('schedule')).filter((entry) => entry.workflowId === head.workflowId);

describe('a trigger index write under transaction conflicts on the head', () => {
  it('backs off before each retry and indexes the workflow once the conflicts pass', async () => {
    const { head } = await seedWorkflow(store, minimalWorkflow({ trigger: schedule }));
    conflictsLeft = 3;
    transactions = 0;

    await sync.sync(requestOf(head));

    expect(transactions).toBe(4);
    expect(waits).toEqual([1, 2, 3]);
    expect(await indexed(head)).toHaveLength(1);
  });

  it('fails the sync after four attempts, and writes nothing', async () => {
    const { head } = await seedWorkflow(store, minimalWorkflow({ trigger: schedule }));
    conflictsLeft = 5;
    transactions = 0;

    await expect(sync.sync(requestOf(head))).rejects.toBeInstanceOf(TriggerSyncError);

    expect(transactions).toBe(4);
    expect(waits).toEqual([1, 2, 3]);
    expect(await indexed(head)).toHaveLength(0);
  });
});
