/**
 * `commit`: the one write primitive for a run. It moves the run item from the revision that was read to
 * the next one and, in the same DynamoDB transaction, writes the messages, ledger rows, approvals, day
 * spend, graph run spend and sealed audit entries that belong to that step. Any failed condition cancels all
 * of it.
 */
import { TransactionCanceledException } from '@aws-sdk/client-dynamodb';
import type { TransactWriteCommand } from '@aws-sdk/lib-dynamodb';
import type { RunChange } from '../core/store-port.ts';
import { canTransition, type Run } from '../schemas/run.ts';
import { auditItems } from './audit-items.ts';
import { isConflictOnly, isThrottle, type StoreContext } from './client.ts';
import { daySpendUpdate, graphSpendUpdate } from './day-spend-item.ts';
import {
  ApprovalAlreadyDecidedError,
  DayBudgetExceededError,
  GraphBudgetExceededError,
  HumanTaskClosedError,
  InvalidTransitionError,
  LedgerConflictError,
  RunConflictError,
  StoreThrottledError,
  WorkflowHeadChangedError,
  WorkflowHeadMovedError,
} from './errors.ts';
import { indexKeys, keys } from './keys.ts';
import { ledgerSettleUpdate } from './ledger-settle.ts';
import { messageItems } from './message-items.ts';
import { leavesWatchedPending, pendingMarkerDelete } from './pending-runs.ts';
import { runItem, runUpdate } from './run-update.ts';
import { sealAuditInputs } from './seal.ts';
import { stepWriteItem } from './steps.ts';
import { transactRetryingConflicts } from './transact-retry.ts';
import { assertTransactionFits } from './transaction-limits.ts';

type TransactItem = NonNullable<
  ConstructorParameters<typeof TransactWriteCommand>[0]['TransactItems']
>[number];
/**
 * A transaction item, the error its failed condition means, and, for an Update, the whole item it leaves, which
 * is what DynamoDB's item and transaction size limits count (transaction-limits.ts).
 */
type Labeled = { item: TransactItem; onConditionFailed: () => Error; sizedAs?: TransactItem };

/**
 * The next run item; a ledger row created drops the "no ledger rows" hint of a waiting run, and a run no longer
 * waiting on approvals drops their decisions (schemas/run.ts).
 */
function withoutStaleHints(change: RunChange): Run {
  let next = change.next;
  if (change.ledgerCreate?.length && next.awaitingUnrecorded) {
    const { awaitingUnrecorded: _dropped, ...rest } = next;
    next = rest;
  }
  if (next.approvalDecisions && next.pendingApprovalIds.length === 0) {
    const { approvalDecisions: _done, ...rest } = next;
    next = rest;
  }
  return next;
}

/** What a commit wrote that its store keeps: the run item's next revision, and the items of the messages. */
export type Committed = { next: Run; messageItems: readonly Record<string, unknown>[] };

export async function commitRunChange(ctx: StoreContext, change: RunChange): Promise<Committed> {
  const { run } = change;
  const reopening =
    change.reopen === true &&
    run.kind === 'graph' &&
    run.status === 'failed' &&
    change.next.status === 'running';
  if (change.next.status !== run.status && !reopening && !canTransition(run.status, change.next.status)) {
    throw new InvalidTransitionError(run.runId, run.status, change.next.status);
  }
  const { entries: sealed, audit } = sealAuditInputs(run, change.audit ?? [], change.next.updatedAt);
  const next: Run = { ...withoutStaleHints(change), rev: run.rev + 1, audit };
  const T = ctx.table;
  const items: Labeled[] = [
    {
      // Only what changed, fenced on the revision read (run-update.ts).
      item: runUpdate(T, run, next),
      sizedAs: { Put: { TableName: T, Item: runItem(next) } },
      onConditionFailed: () => new RunConflictError(run.runId, run.rev),
    },
  ];
  const putNew = (item: Record<string, unknown>, onConditionFailed: () => Error) =>
    items.push({
      item: { Put: { TableName: T, Item: item, ConditionExpression: 'attribute_not_exists(pk)' } },
      onConditionFailed,
    });
  // The step's entries in one item (audit-items.ts), split only past the item size limit.
  for (const item of auditItems(run.runId, sealed))
    putNew(item, () => new RunConflictError(run.runId, run.rev));
  // A large message spans several items (message-items.ts); all of them land in this transaction.
  const written = (change.messages ?? []).flatMap((message) => messageItems(message));
  for (const item of written) putNew(item, () => new RunConflictError(run.runId, run.rev));
  for (const row of change.ledgerCreate ?? []) {
    putNew(
      { ...keys.ledger(row.runId, row.toolUseId), ...row },
      () => new LedgerConflictError(row.runId, row.toolUseId, 'already exists'),
    );
  }
  for (const row of change.ledgerSettle ?? []) {
    items.push({
      // The settlement's fields only, conditional on `pending` (ledger-settle.ts).
      item: ledgerSettleUpdate(T, row),
      sizedAs: { Put: { TableName: T, Item: { ...keys.ledger(row.runId, row.toolUseId), ...row } } },
      onConditionFailed: () =>
        new LedgerConflictError(row.runId, row.toolUseId, 'already settled; a second settle is refused'),
    });
  }
  for (const approval of change.approvalCreate ?? []) {
    putNew(
      {
        ...keys.approval(approval.approvalId),
        ...indexKeys.approvalByOwner(approval.owner, approval.createdAt, approval.approvalId),
        ...approval,
      },
      () => new ApprovalAlreadyDecidedError(approval.approvalId, 'exists'),
    );
  }
  for (const update of change.approvalUpdate ?? []) items.push(approvalUpdateItem(T, run, update));
  for (const write of change.steps ?? []) items.push(stepWriteItem(T, write));
  for (const { task, expectedStatus } of change.humanTaskPut ?? []) {
    const Item = {
      ...keys.humanTask(task.runId, task.stepId, task.attempt),
      ...indexKeys.humanTaskByOwner(task.owner, task.createdAt, task.taskId),
      ...task,
    };
    items.push({
      item: {
        Put:
          expectedStatus === undefined
            ? { TableName: T, Item, ConditionExpression: 'attribute_not_exists(pk)' }
            : {
                TableName: T,
                Item,
                ConditionExpression: '#status = :expected',
                ExpressionAttributeNames: { '#status': 'status' },
                ExpressionAttributeValues: { ':expected': expectedStatus },
              },
      },
      onConditionFailed: () => new HumanTaskClosedError(task.taskId, expectedStatus ? undefined : 'exists'),
    });
  }
  if (change.daySpend) {
    const { item, guarded } = daySpendUpdate(T, change.daySpend);
    const { workflowId, day, deltaUsd, limitUsd } = change.daySpend;
    items.push({ item, onConditionFailed: () => new DayBudgetExceededError(workflowId, day) });
    if (guarded && deltaUsd > (limitUsd ?? Number.POSITIVE_INFINITY))
      throw new DayBudgetExceededError(workflowId, day);
  }
  if (change.graphSpend) {
    const { item, guarded } = graphSpendUpdate(T, change.graphSpend);
    const { graphRunId, deltaUsd, limitUsd } = change.graphSpend;
    items.push({ item, onConditionFailed: () => new GraphBudgetExceededError(graphRunId) });
    if (guarded && deltaUsd > (limitUsd ?? Number.POSITIVE_INFINITY))
      throw new GraphBudgetExceededError(graphRunId);
  }
  if (change.liveHead && change.headAt)
    throw new Error('a run change may condition on the live head or on its revision, not both');
  if (change.liveHead) items.push(liveHeadCheck(T, change.liveHead));
  if (change.headAt) items.push(headAtCheck(T, change.headAt));
  // A run leaving `pending` is no longer the pending-runs sweep's (pending-runs.ts): one more item, once per run.
  // A merged change holds at most 80 items besides the run item (core/staged-change.ts), so this stays within
  // TransactWriteItems' 100 (https://docs.aws.amazon.com/amazondynamodb/latest/APIReference/API_TransactWriteItems.html);
  // every transaction is checked below all the same (transaction-limits.ts).
  if (leavesWatchedPending(run, next))
    items.push({
      item: pendingMarkerDelete(T, run),
      onConditionFailed: () => new RunConflictError(run.runId, run.rev),
    });
  const transact = items.map((labeled) => labeled.item);
  // An Update is sized as the whole item it leaves, like the Put it replaces: the item limit is on the item, and
  // the transaction's on the aggregate size of its items, not on what the request carries.
  assertTransactionFits(items.map((labeled) => labeled.sizedAs ?? labeled.item));
  try {
    // A cancellation only by conflicts with other transactions (a shared counter: the day's spend, a graph run's
    // budget) is sent again a few times first (transact-retry.ts).
    await transactRetryingConflicts(ctx, transact);
  } catch (error) {
    if (error instanceof TransactionCanceledException) {
      const reasons = error.CancellationReasons ?? [];
      // Report the most specific failed condition: a decided approval or settled row before a run conflict.
      const failed = reasons
        .map((reason, index) => (reason.Code === 'ConditionalCheckFailed' ? items[index] : undefined))
        .filter((labeled): labeled is Labeled => labeled !== undefined);
      const specific = failed.find((labeled) => labeled !== items[0]) ?? failed[0];
      if (specific) throw specific.onConditionFailed();
      // Still conflicting after its sends: a busy store, which every caller retries (StoreThrottledError is one
      // of the state machines' retryable errors), never a lost fence: the run's revision did not move.
      if (reasons.some((reason) => reason.Code === 'ThrottlingError') || isConflictOnly(reasons))
        throw new StoreThrottledError({ cause: error });
      throw new RunConflictError(run.runId, run.rev, { cause: error });
    }
    if (isThrottle(error)) throw new StoreThrottledError({ cause: error });
    throw error;
  }
  return { next, messageItems: written };
}

/**
 * The workflow head as a condition of the transaction (a ConditionCheck item: no item is written, and no
 * request is added). A missing head fails the comparison, so a deleted item fails closed too. A head stored
 * before `deleted` existed has no such attribute and counts as not deleted (the schema's default). A
 * transaction may not touch one item twice; a run commit never writes a workflow head, so this cannot clash.
 * https://docs.aws.amazon.com/amazondynamodb/latest/APIReference/API_ConditionCheck.html
 * https://docs.aws.amazon.com/amazondynamodb/latest/APIReference/API_TransactWriteItems.html
 */
function liveHeadCheck(table: string, head: NonNullable<RunChange['liveHead']>): Labeled {
  return {
    item: {
      ConditionCheck: {
        TableName: table,
        Key: keys.workflowHead(head.owner, head.workflowId),
        ConditionExpression:
          'enabled = :true AND latestVersion = :latest AND (attribute_not_exists(deleted) OR deleted = :false)',
        ExpressionAttributeValues: { ':true': true, ':false': false, ':latest': head.latestVersion },
      },
    },
    onConditionFailed: () => new WorkflowHeadMovedError(head.workflowId),
  };
}

/**
 * The workflow head still at the revision the caller saw (a ConditionCheck item, no request added). A missing
 * head fails it; a head stored without `rev` is revision 0 (workflows.ts `revFence`). Every write of a head
 * moves its revision, so any change since the caller's read fails this transaction.
 */
function headAtCheck(table: string, head: NonNullable<RunChange['headAt']>): Labeled {
  return {
    item: {
      ConditionCheck: {
        TableName: table,
        Key: keys.workflowHead(head.owner, head.workflowId),
        ConditionExpression:
          head.rev === 0
            ? 'attribute_exists(pk) AND (attribute_not_exists(rev) OR rev = :rev)'
            : 'attribute_exists(pk) AND rev = :rev',
        ExpressionAttributeValues: { ':rev': head.rev },
      },
    },
    onConditionFailed: () => new WorkflowHeadChangedError(head.workflowId, head.rev),
  };
}

/**
 * An approval replaced, conditional on the status it was read with and, when given, on its task token as read.
 * A failed status check is a decided approval; with a token check the failure may also be a token attached
 * since the read, which is no refusal: the caller reads again (RunConflictError) and then sees which it was.
 */
function approvalUpdateItem(
  T: string,
  run: Run,
  update: NonNullable<RunChange['approvalUpdate']>[number],
): Labeled {
  const { approval, expectedStatus, expectedTaskToken } = update;
  const tokenCheck =
    expectedTaskToken === undefined
      ? ''
      : expectedTaskToken === null
        ? ' AND attribute_not_exists(taskToken)'
        : ' AND taskToken = :token';
  return {
    item: {
      Put: {
        TableName: T,
        Item: {
          ...keys.approval(approval.approvalId),
          ...indexKeys.approvalByOwner(approval.owner, approval.createdAt, approval.approvalId),
          ...approval,
        },
        ConditionExpression: `#status = :expected${tokenCheck}`,
        ExpressionAttributeNames: { '#status': 'status' },
        ExpressionAttributeValues: {
          ':expected': expectedStatus,
          ...(typeof expectedTaskToken === 'string' ? { ':token': expectedTaskToken } : {}),
        },
      },
    },
    onConditionFailed: () =>
      expectedTaskToken === undefined
        ? new ApprovalAlreadyDecidedError(approval.approvalId)
        : new RunConflictError(run.runId, run.rev),
  };
}
