/**
 * `getRunWithMessages` (shared/store/run-with-messages.ts) on DynamoDB Local: one Query,
 * `sk BETWEEN 'MSG#' AND 'RUN'`, returns exactly the run and its transcript, whatever else the partition holds
 * (audit items, human tasks, notes, a resume token, steps, ledger rows), pages past 1 MB with the run item on
 * the last page, and answers a missing run with `run: undefined`.
 */
import { PutCommand, QueryCommand } from '@aws-sdk/lib-dynamodb';
import { describe, expect, it } from 'vitest';
import type { TranscriptMessage } from '../../shared/schemas/message.ts';
import type { Run } from '../../shared/schemas/run.ts';
import { type DynamoStore, keys } from '../../shared/store/index.ts';
import { driveRun, engineDeps, ScriptedModel, text, toolUse } from '../support/engine.ts';
import { minimalWorkflow, randomIds, seedRun, seedWorkflow, testStore } from '../support/store.ts';

/** A store of its own whose requests are logged by command, with each Query's page count. */
function countingStore() {
  const store = testStore();
  const sent: string[] = [];
  store.ctx.doc.middlewareStack.add(
    (next, context) => async (args) => {
      sent.push(String(context.commandName));
      return next(args);
    },
    { step: 'initialize', name: 'requestCounter' },
  );
  return { store, sent };
}

/** The kinds of item in a run's partition, by sort-key prefix (`MSG#000001#0001` → `MSG`). */
async function kindsIn(store: DynamoStore, runId: string): Promise<string[]> {
  const kinds = new Set<string>();
  let startKey: Record<string, unknown> | undefined;
  do {
    const page = await store.ctx.doc.send(
      new QueryCommand({
        TableName: store.ctx.table,
        KeyConditionExpression: 'pk = :pk',
        ExpressionAttributeValues: { ':pk': keys.run(runId).pk },
        ProjectionExpression: 'sk',
        ExclusiveStartKey: startKey,
      }),
    );
    for (const item of page.Items ?? []) kinds.add(String(item.sk).split('#')[0] ?? '');
    startKey = page.LastEvaluatedKey;
  } while (startKey);
  return [...kinds].sort();
}

/** An item of another kind at `key`, shaped as nothing the read could parse (were it read as a message). */
const put = (store: DynamoStore, key: { pk: string; sk: string }) =>
  store.ctx.doc.send(new PutCommand({ TableName: store.ctx.table, Item: { ...key, junk: 'not a message' } }));

/** Appends `messages` to the run in one fenced commit, as a turn does. */
async function append(store: DynamoStore, run: Run, messages: TranscriptMessage[]): Promise<Run> {
  return store.commit({ run, next: { ...run, messageCount: run.messageCount + messages.length }, messages });
}

const bigMessage = (run: Run, seq: number, role: 'user' | 'assistant', bytes: number): TranscriptMessage => ({
  schemaVersion: 1,
  runId: run.runId,
  seq,
  turn: run.turn,
  role,
  // Distinct per message, so a part assembled into the wrong message would show.
  content: [{ type: 'text', text: `${seq}:${String.fromCharCode(97 + seq).repeat(bytes)}` }],
  createdAt: '2026-11-30T07:00:00.000Z',
});

describe('getRunWithMessages', () => {
  it('returns exactly the run and its messages, with every other kind of item in the partition', async () => {
    // Prepare: a run that called notes_append (a note, a ledger row, audit items), then a resume token, a step
    // and a human task in the same partition.
    const { store, sent } = countingStore();
    const { version } = await seedWorkflow(store, minimalWorkflow());
    const run = await seedRun(store, version);
    const model = new ScriptedModel([
      { content: [toolUse('n1', 'notes_append', { name: 'log', line: 'one' })], stopReason: 'tool_use' },
      { content: [text('done')], stopReason: 'end_turn' },
    ]);
    // Driven in another container (its own store), so this one holds none of the transcript: the Query path.
    await driveRun(engineDeps(testStore(), model), run.runId);
    await store.putResumeToken(run.runId, 'task-token');
    await put(store, keys.step(run.runId, 'fetch'));
    await put(store, keys.humanTask(run.runId, 'review', 1));
    expect(await kindsIn(store, run.runId)).toEqual([
      'AUD',
      'HTK',
      'MSG',
      'NOTE',
      'RESUME',
      'RUN',
      'STEP',
      'TOOL',
    ]);
    const expected = { run: await store.getRun(run.runId), messages: await store.listMessages(run.runId) };
    sent.length = 0;

    // Act
    const read = await store.getRunWithMessages(run.runId);

    // Assess: one request; the same run and transcript as the two reads it replaces, nothing else.
    expect(sent).toEqual(['QueryCommand']);
    expect(read).toEqual(expected);
    expect(read.run?.status).toBe('done');
    expect(read.messages.map((message) => message.seq)).toEqual([0, 1, 2, 3]);
    expect(read.messages).toHaveLength(read.run?.messageCount ?? -1);
  });

  it('pages a transcript over 1 MB, joins continuation parts, and finds the run on the last page', async () => {
    // Prepare: three messages of ~450 KB each (over the 400 KB item limit: each a head and continuation
    // parts), about 1.35 MB in all, plus a note sorting between the messages and the run.
    const { store, sent } = countingStore();
    const { version } = await seedWorkflow(store, minimalWorkflow());
    let run = await seedRun(store, version);
    const first = run.messageCount;
    for (const [i, role] of (['assistant', 'user', 'assistant'] as const).entries())
      run = await append(store, run, [bigMessage(run, first + i, role, 450_000)]);
    await store.append(run.runId, 'log', 'a note between the messages and the run');
    const parts = (await rawMessageKeys(store, run.runId)).filter((sk) => /^MSG#\d{6}#\d{4}$/.test(sk));
    expect(parts.length).toBeGreaterThanOrEqual(3);
    const expected = await store.listMessages(run.runId);
    sent.length = 0;

    // Act
    const read = await store.getRunWithMessages(run.runId);

    // Assess: more than one page (1 MB each), the messages whole and in order, the run as committed.
    expect(sent.length).toBeGreaterThan(1);
    expect(new Set(sent)).toEqual(new Set(['QueryCommand']));
    expect(read.run).toEqual(run);
    expect(read.messages).toEqual(expected);
    expect(read.messages.slice(first).map((message) => message.content)).toEqual(
      [0, 1, 2].map((i) => bigMessage(run, first + i, 'user', 450_000).content),
    );
  });

  it('answers a missing run with run: undefined and no messages, in one request', async () => {
    const { store, sent } = countingStore();

    const read = await store.getRunWithMessages(randomIds.next('run'));

    expect(read).toEqual({ run: undefined, messages: [] });
    expect(sent).toEqual(['QueryCommand']);
  });
});

async function rawMessageKeys(store: DynamoStore, runId: string): Promise<string[]> {
  const keysFound: string[] = [];
  let startKey: Record<string, unknown> | undefined;
  do {
    const page = await store.ctx.doc.send(
      new QueryCommand({
        TableName: store.ctx.table,
        KeyConditionExpression: 'pk = :pk AND begins_with(sk, :msg)',
        ExpressionAttributeValues: { ':pk': keys.run(runId).pk, ':msg': 'MSG#' },
        ProjectionExpression: 'sk',
        ExclusiveStartKey: startKey,
      }),
    );
    keysFound.push(...(page.Items ?? []).map((item) => String(item.sk)));
    startKey = page.LastEvaluatedKey;
  } while (startKey);
  return keysFound;
}
