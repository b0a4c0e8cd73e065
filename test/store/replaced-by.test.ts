/**
 * A schedule's or an event's run that ended without ever starting (`failed`, `ExecutionNotStarted`) is replaced
 * by a new run when its trigger comes again (shared/runs/start-run.ts); the new run's creating transaction takes
 * the idempotency marker over (Idempotency.replaces) and links the ended run to it (`replacedBy`: an Update of
 * the ended run's item, conditional on it still being failed `ExecutionNotStarted` and not linked yet,
 * shared/store/runs.ts). On DynamoDB Local: a failed condition of either item cancels the whole transaction.
 */
import { randomUUID } from 'node:crypto';
import { TransactionCanceledException } from '@aws-sdk/client-dynamodb';
import { GetCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { describe, expect, it } from 'vitest';
import { prepareRun } from '../../shared/core/new-run.ts';
import { ExecutionNotStartedError } from '../../shared/runs/ports.ts';
import { endUnstarted } from '../../shared/runs/start-run.ts';
import type { Run } from '../../shared/schemas/run.ts';
import type { WorkflowVersion } from '../../shared/schemas/workflow-record.ts';
import type { Idempotency } from '../../shared/store/index.ts';
import { keys } from '../../shared/store/keys.ts';
import { FixedClock, minimalWorkflow, randomIds, seedWorkflow, testStore } from '../support/store.ts';

const store = testStore();
/** Every TransactWriteItems this file's store sends, as sent. */
const transactions: { TransactItems: Record<string, { Key?: { pk: string }; Item?: { pk: string } }>[] }[] =
  [];
/** How many of the next TransactWriteItems are cancelled by conflicts (injected in front of DynamoDB Local). */
let conflictsLeft = 0;
store.ctx.doc.middlewareStack.add(
  (next, context) => async (args) => {
    if (context.commandName !== 'TransactWriteItemsCommand') return next(args);
    const input = structuredClone(args.input as (typeof transactions)[number]);
    transactions.push(input);
    if (conflictsLeft === 0) return next(args);
    conflictsLeft--;
    throw new TransactionCanceledException({
      message: 'Transaction cancelled, please refer cancellation reasons for specific reasons',
      $metadata: {},
      CancellationReasons: input.TransactItems.map(() => ({ Code: 'TransactionConflict' })),
    });
  },
  { step: 'initialize', name: 'recordTransactions' },
);

type Trigger = { type: 'event'; eventId: string; source: string; detailType: string };

/** An event's run created with its marker, as start-run creates it (the marker held 15 days). */
async function eventRun(clock: FixedClock) {
  const { version } = await seedWorkflow(store, minimalWorkflow(), { clock });
  const trigger: Trigger = {
    type: 'event',
    eventId: `evt-${randomUUID()}`,
    source: 'app.orders',
    detailType: 'OrderPlaced',
  };
  const idempotency: Idempotency = {
    scope: `event:${version.workflowId}`,
    key: trigger.eventId,
    requestHash: 'same-request',
    expiresAtEpoch: Math.floor(clock.nowMs() / 1000) + 15 * 86_400,
  };
  const { run } = await store.createRun(
    prepareRun({ version, trigger, clock, ids: randomIds, actor: 'system' }),
    idempotency,
  );
  return { version, trigger, idempotency, run };
}

/** The event's run, ended as the sweep ends a run whose execution does not exist. */
async function endedUnstarted(clock: FixedClock) {
  const made = await eventRun(clock);
  const cause = new ExecutionNotStartedError(made.run.runId, { cause: new Error('refused') });
  expect(await endUnstarted({ store, clock }, made.run, cause)).toBe(true);
  const ended = (await store.getRun(made.run.runId))!;
  expect(ended).toMatchObject({ status: 'failed', error: { name: 'ExecutionNotStarted' } });
  return { ...made, ended };
}

/** The creation start-run makes for the trigger coming again: a new run in `replaces`' place. */
function replace(
  made: { version: WorkflowVersion; trigger: Trigger; idempotency: Idempotency },
  replaces: Run,
  clock: FixedClock,
) {
  return store.createRun(
    prepareRun({
      version: made.version,
      trigger: { ...made.trigger, replacesRunId: replaces.runId },
      clock,
      ids: randomIds,
      actor: 'system',
    }),
    { ...made.idempotency, replaces: replaces.runId },
  );
}

const markedRunId = async (version: WorkflowVersion, idempotency: Idempotency) => {
  const key = keys.idempotency(version.owner, idempotency.scope, idempotency.key);
  const { Item } = await store.ctx.doc.send(new GetCommand({ TableName: store.ctx.table, Key: key }));
  return Item?.runId as string | undefined;
};

const runIdsOf = async (version: WorkflowVersion) =>
  (await store.listRuns({ owner: version.owner, workflowId: version.workflowId, limit: 50 })).items
    .map((run) => run.runId)
    .sort();

/** What the transaction that created `runId` did to each item, as `<action> <partition>`. */
const creationOf = (runId: string) => {
  const creation = transactions.find((transaction) =>
    transaction.TransactItems.some((part) => part.Put?.Item?.pk === `RUN#${runId}`),
  );
  return creation?.TransactItems.map((part) => {
    const [action, body] = Object.entries(part)[0]!;
    return `${action} ${(body.Key ?? body.Item)!.pk}`;
  });
};

describe('replacedBy: the ended run links to the run that replaced it', () => {
  it('is written on the ended run by the transaction that creates the new run', async () => {
    // Prepare
    const clock = new FixedClock();
    const made = await endedUnstarted(clock);
    clock.advance(3 * 86_400_000);

    // Act
    const { run, created } = await replace(made, made.ended, clock);

    // Assess: one transaction created the run, took the marker over and linked the ended run (rev moved on).
    expect(created).toBe(true);
    expect(creationOf(run.runId)).toEqual(
      expect.arrayContaining([
        `Put RUN#${run.runId}`,
        `Put ${keys.idempotency(made.version.owner, made.idempotency.scope, made.idempotency.key).pk}`,
        `Update RUN#${made.ended.runId}`,
      ]),
    );
    expect(await store.getRun(made.ended.runId)).toEqual({
      ...made.ended,
      replacedBy: run.runId,
      rev: made.ended.rev + 1,
    });
    expect(await store.getRun(run.runId)).toMatchObject({
      status: 'pending',
      trigger: { replacesRunId: made.ended.runId },
    });
    expect(await markedRunId(made.version, made.idempotency)).toBe(run.runId);
  });

  it('creates one run and one link for two replacements at once; the other is answered that run', async () => {
    // Prepare
    const clock = new FixedClock();
    const made = await endedUnstarted(clock);

    // Act: both found the ended run before either wrote.
    const outcomes = await Promise.all([replace(made, made.ended, clock), replace(made, made.ended, clock)]);

    // Assess
    const winner = outcomes.find((outcome) => outcome.created)!;
    expect(outcomes.map((outcome) => outcome.created).sort()).toEqual([false, true]);
    expect(outcomes.map((outcome) => outcome.run.runId)).toEqual([winner.run.runId, winner.run.runId]);
    expect(await runIdsOf(made.version)).toEqual([made.ended.runId, winner.run.runId].sort());
    // Linked once: to the winner, one revision on.
    expect(await store.getRun(made.ended.runId)).toMatchObject({
      replacedBy: winner.run.runId,
      rev: made.ended.rev + 1,
    });
    expect(await markedRunId(made.version, made.idempotency)).toBe(winner.run.runId);
  });

  it('never overwrites a link: a replacement of a run linked already writes nothing', async () => {
    // Prepare: the ended run links to another run while the marker still names it (the marker's condition
    // would let a replacement through; only the link's condition stops it).
    const clock = new FixedClock();
    const made = await endedUnstarted(clock);
    const other = randomIds.next('run');
    await store.ctx.doc.send(
      new UpdateCommand({
        TableName: store.ctx.table,
        Key: keys.run(made.ended.runId),
        UpdateExpression: 'SET replacedBy = :other',
        ExpressionAttributeValues: { ':other': other },
      }),
    );
    const before = transactions.length;

    // Act
    const replacement = replace(made, made.ended, clock);

    // Assess: the whole transaction cancelled by the link's condition alone (the marker's held), and not answered
    // with the ended run as if another creation had taken the marker: nothing was started in its place. The
    // reasons are "ordered according to the ordering of the TransactWriteItems request parameter", `None` for an
    // item without an error (https://docs.aws.amazon.com/amazondynamodb/latest/APIReference/API_CancellationReason.html).
    const error = await replacement.catch((thrown: unknown) => thrown);
    expect(error).toBeInstanceOf(TransactionCanceledException);
    const sent = transactions.slice(before);
    expect(sent).toHaveLength(1);
    const codes = (error as TransactionCanceledException).CancellationReasons!.map((reason) => reason.Code);
    const parts = sent[0]!.TransactItems.map((part) => Object.keys(part)[0]);
    expect(codes[parts.indexOf('Update')]).toBe('ConditionalCheckFailed');
    expect(codes.filter((code) => code === 'ConditionalCheckFailed')).toHaveLength(1);
    expect(await store.getRun(made.ended.runId)).toEqual({ ...made.ended, replacedBy: other });
    expect(await runIdsOf(made.version)).toEqual([made.ended.runId]);
    expect(await markedRunId(made.version, made.idempotency)).toBe(made.ended.runId);
  });

  it('answers no replacement whose conflicts outlast its attempts with the ended run: it fails, nothing written', async () => {
    // Prepare
    const clock = new FixedClock();
    const made = await endedUnstarted(clock);
    const before = transactions.length;
    conflictsLeft = 4;

    // Act
    const replacement = replace(made, made.ended, clock);

    // Assess: the four attempts (shared/store/runs.ts CREATE_ATTEMPTS) cancelled; the marker still names the
    // ended run, so no other creation took it over and there is no run to answer: the error, for a retry.
    await expect(replacement).rejects.toBeInstanceOf(TransactionCanceledException);
    expect(conflictsLeft).toBe(0);
    expect(transactions.length - before).toBe(4);
    expect(await store.getRun(made.ended.runId)).toEqual(made.ended);
    expect(await runIdsOf(made.version)).toEqual([made.ended.runId]);
  });

  it.each([
    [
      'failed otherwise',
      { status: 'failed', stopReason: 'error', error: { name: 'States.Timeout', message: 't' } },
    ],
    ['done', { status: 'done', stopReason: 'end_turn' }],
    ['cancelled', { status: 'cancelled', stopReason: 'cancelled' }],
  ] as const)('links no run that ended %s, and creates nothing in its place', async (_label, end) => {
    // Prepare: the marker names the run, which ended some other way.
    const clock = new FixedClock();
    const made = await eventRun(clock);
    await store.commit({
      run: made.run,
      next: { ...made.run, ...end, endedAt: made.run.createdAt },
    });
    const ended = (await store.getRun(made.run.runId))!;

    // Act
    const replacement = replace(made, ended, clock);

    // Assess
    await expect(replacement).rejects.toBeInstanceOf(TransactionCanceledException);
    expect(await store.getRun(ended.runId)).toEqual(ended);
    expect(await runIdsOf(made.version)).toEqual([ended.runId]);
    expect(await markedRunId(made.version, made.idempotency)).toBe(ended.runId);
  });
});
