/**
 * A turn's first read by key (shared/store/turn-read.ts): the run, the messages the container does not hold
 * (up to the count the caller expects: 1 on a run's first turn, the previous turn's hint later) and the
 * workflow head in one BatchGetItem, and the transcript only when that is certainly all of it; otherwise the
 * rest by Query from the first message not read. Each case compares what it returns with a fresh read by Query
 * in another container.
 */
import { isDeepStrictEqual } from 'node:util';
import { GetCommand } from '@aws-sdk/lib-dynamodb';
import { describe, expect, it } from 'vitest';
import type { Run } from '../../shared/schemas/run.ts';
import { keys } from '../../shared/store/keys.ts';
import { TURN_READ_MAX_MESSAGES } from '../../shared/store/turn-read.ts';
import { minimalWorkflow, seedRun, seedWorkflow, testStore } from '../support/store.ts';

/** A store of its own that logs the DynamoDB commands it sends, with each Query's lower sort key. */
function loggingStore() {
  const store = testStore();
  const sent: string[] = [];
  store.ctx.doc.middlewareStack.add(
    (next, context) => async (args) => {
      const name = String(context.commandName);
      const values = (args.input as { ExpressionAttributeValues?: Record<string, unknown> })
        .ExpressionAttributeValues;
      sent.push(name === 'QueryCommand' ? `${name} from ${String(values?.[':from'])}` : name);
      return next(args);
    },
    { step: 'initialize', name: 'sentLog' },
  );
  return { store, sent };
}

/**
 * Each BatchGetItem answers as DynamoDB does past "more than 1MB per partition"
 * (https://docs.aws.amazon.com/amazondynamodb/latest/APIReference/API_BatchGetItem.html): the message keys from
 * `fromSeq` on are left unprocessed, the rest answered.
 */
function leaveMessagesUnprocessed(store: ReturnType<typeof testStore>, fromSeq: number) {
  store.ctx.doc.middlewareStack.add(
    (next, context) => async (args) => {
      if (context.commandName !== 'BatchGetItemCommand') return next(args);
      const input = args.input as { RequestItems: Record<string, { Keys: { sk: string }[] }> };
      const [table, asked] = Object.entries(input.RequestItems)[0]!;
      const left = (key: { sk: string }) => /^MSG#\d{6}$/.test(key.sk) && Number(key.sk.slice(4)) >= fromSeq;
      const kept = { ...asked, Keys: asked.Keys.filter((key) => !left(key)) };
      const answered = (await next({ ...args, input: { RequestItems: { [table]: kept } } })) as {
        output: { UnprocessedKeys?: unknown };
      };
      answered.output.UnprocessedKeys = { [table]: { ...asked, Keys: asked.Keys.filter(left) } };
      return answered as never;
    },
    { step: 'initialize', name: 'leaveMessagesUnprocessed' },
  );
}

/** Every BatchGetItem answers nothing and leaves its keys unprocessed (a throttled table). */
function leaveUnprocessed(store: ReturnType<typeof testStore>) {
  store.ctx.doc.middlewareStack.add(
    (next, context) => async (args) => {
      if (context.commandName !== 'BatchGetItemCommand') return next(args);
      const input = args.input as { RequestItems: Record<string, unknown> };
      return { response: {}, output: { Responses: {}, UnprocessedKeys: input.RequestItems, $metadata: {} } };
    },
    { step: 'initialize', name: 'leaveUnprocessed' },
  );
}

async function seeded(opts: { input?: unknown } = {}) {
  const { store, sent } = loggingStore();
  const { head, version } = await seedWorkflow(store, minimalWorkflow());
  const run = await seedRun(store, version, opts);
  const hint = { owner: head.owner, workflowId: head.workflowId };
  sent.length = 0;
  return { store, sent, head, run, hint };
}

/** What a container that has not read the run gets from the Query path. */
async function freshRead(run: Run) {
  return testStore().getRunWithMessages(run.runId);
}

describe('getRunWithMessages on a run’s first turn (messageCount 1)', () => {
  it('reads the run, its first message and the head in one BatchGetItem, and returns what the Query returns', async () => {
    // Prepare
    const { store, sent, head, run, hint } = await seeded({ input: { ticket: 'T-1', note: 'é€😀' } });

    // Act
    const read = await store.getRunWithMessages(run.runId, hint, { messageCount: 1 });

    // Assess
    expect(sent).toEqual(['BatchGetItemCommand']);
    const fresh = await freshRead(run);
    expect(read.run).toStrictEqual(fresh.run);
    expect(read.messages).toHaveLength(1);
    expect(isDeepStrictEqual(read.messages, fresh.messages)).toBe(true);
    expect(read.head).toStrictEqual({ value: await store.getWorkflowHead(head.owner, head.workflowId) });
  });

  it('keeps what it read: the next turn in the container reads the run and the head by key alone', async () => {
    // Prepare
    const { store, sent, run, hint } = await seeded();
    await store.getRunWithMessages(run.runId, hint, { messageCount: 1 });
    sent.length = 0;

    // Act
    const again = await store.getRunWithMessages(run.runId, hint);

    // Assess
    expect(sent).toEqual(['BatchGetItemCommand']);
    expect(again.messages).toStrictEqual((await freshRead(run)).messages);
  });

  it('falls back to the Query from seq 0 when the first message is stored in parts, with the same transcript', async () => {
    // Prepare: an input of 100,000 control characters (100 KB on the run item) that the first message shows
    // as JSON, `\u0001` each (600 KB), over one item's 380,000 bytes: a head item and continuations.
    const { store, sent, head, run, hint } = await seeded({ input: '\u0001'.repeat(100_000) });
    const stored = await testStore().ctx.doc.send(
      new GetCommand({ TableName: store.ctx.table, Key: keys.message(run.runId, 0) }),
    );
    expect(stored.Item?.parts).toBeGreaterThan(0);

    // Act
    const read = await store.getRunWithMessages(run.runId, hint, { messageCount: 1 });

    // Assess: the batch, then the Query of the run with its whole transcript; the head as the batch read it.
    expect(sent).toEqual(['BatchGetItemCommand', 'QueryCommand from MSG#']);
    const fresh = await freshRead(run);
    expect(read.run).toStrictEqual(fresh.run);
    expect(read.messages).toHaveLength(1);
    expect(isDeepStrictEqual(read.messages, fresh.messages)).toBe(true);
    expect(read.head).toStrictEqual({ value: await store.getWorkflowHead(head.owner, head.workflowId) });
  });

  it('reads the messages after the first by Query when the run has more than its first (a stale count)', async () => {
    // Prepare: another container committed a second message (a run resumed, or past its first turn).
    const { store, sent, run, hint } = await seeded();
    const other = testStore();
    const moved = await other.commit({
      run,
      next: { ...run, messageCount: 2 },
      messages: [
        {
          schemaVersion: 1,
          runId: run.runId,
          seq: 1,
          turn: 0,
          role: 'assistant',
          content: [{ type: 'text', text: 'second' }],
          createdAt: run.createdAt,
        },
      ],
    });

    // Act
    const read = await store.getRunWithMessages(run.runId, hint, { messageCount: 1 });

    // Assess: the first message as the batch read it; the Query from the next one.
    expect(sent).toEqual(['BatchGetItemCommand', 'QueryCommand from MSG#000001']);
    expect(read.run).toStrictEqual(moved);
    expect(read.messages.map((m) => m.seq)).toEqual([0, 1]);
    expect(isDeepStrictEqual(read.messages, (await freshRead(run)).messages)).toBe(true);
  });

  it('reads as without it (Query and GetItem of the head) when the batch keeps leaving keys unprocessed', async () => {
    // Prepare
    const { store, sent, head, run, hint } = await seeded();
    leaveUnprocessed(store);

    // Act
    const read = await store.getRunWithMessages(run.runId, hint, { messageCount: 1 });

    // Assess: one round (its unprocessed keys not asked again), then the Query and the head's GetItem.
    expect(sent[0]).toBe('BatchGetItemCommand');
    expect(sent.slice(1).sort()).toEqual(['GetItemCommand', 'QueryCommand from MSG#']);
    expect(isDeepStrictEqual(read.messages, (await freshRead(run)).messages)).toBe(true);
    expect(read.run).toStrictEqual(run);
    expect(read.head).toStrictEqual({ value: await store.getWorkflowHead(head.owner, head.workflowId) });
  });

  it('answers a missing run as missing, and a hint naming no head as no head', async () => {
    // Prepare
    const { store, run } = await seeded();

    // Act
    const missing = await store.getRunWithMessages(
      'run_00000000000000000000000000000000',
      { owner: run.owner, workflowId: run.workflowId },
      { messageCount: 1 },
    );
    const noHead = await store.getRunWithMessages(
      run.runId,
      { owner: run.owner, workflowId: 'wf_none' },
      { messageCount: 1 },
    );

    // Assess
    expect(missing.run).toBeUndefined();
    expect(noHead.head).toStrictEqual({ value: undefined });
    expect(noHead.run).toStrictEqual(run);
    expect(noHead.messages).toHaveLength(1);
  });
});

/** Appends `count` one-item messages to the run (as a turn's commits would), from another container. */
async function appended(run: Run, count: number, text = (seq: number) => `message ${seq}`): Promise<Run> {
  const other = testStore();
  const from = run.messageCount;
  return other.commit({
    run,
    next: { ...run, messageCount: from + count },
    messages: Array.from({ length: count }, (_, i) => ({
      schemaVersion: 1 as const,
      runId: run.runId,
      seq: from + i,
      turn: 0,
      role: (from + i) % 2 === 1 ? ('assistant' as const) : ('user' as const),
      content: [{ type: 'text' as const, text: text(from + i) }],
      createdAt: run.createdAt,
    })),
  });
}

/** The sort keys each BatchGetItem of `store` asked for, request by request. */
function batchKeys(store: ReturnType<typeof testStore>): string[][] {
  const asked: string[][] = [];
  store.ctx.doc.middlewareStack.add(
    (next, context) => async (args) => {
      if (context.commandName === 'BatchGetItemCommand') {
        const input = args.input as { RequestItems: Record<string, { Keys: { sk: string }[] }> };
        asked.push(Object.values(input.RequestItems).flatMap((table) => table.Keys.map((key) => key.sk)));
      }
      return next(args);
    },
    { step: 'initialize', name: 'batchKeys' },
  );
  return asked;
}

describe('getRunWithMessages on a later turn, in a container that holds none or part of the transcript', () => {
  it('reads the run, every message the hint counts and the head in one BatchGetItem (a fresh container)', async () => {
    // Prepare: a run of 7 messages, written by another container.
    const { store, sent, head, run, hint } = await seeded();
    const moved = await appended(run, 6);
    const asked = batchKeys(store);

    // Act: the count the previous turn's outcome names.
    const read = await store.getRunWithMessages(run.runId, hint, { messageCount: 7 });

    // Assess: one request, naming the run, the head and MSG#000000 … MSG#000006; what the Query returns.
    expect(sent).toEqual(['BatchGetItemCommand']);
    expect(asked[0]).toHaveLength(9);
    expect(asked[0]?.filter((sk) => sk.startsWith('MSG#'))).toEqual(
      Array.from({ length: 7 }, (_, seq) => keys.message(run.runId, seq).sk),
    );
    const fresh = await freshRead(run);
    expect(read.run).toStrictEqual(moved);
    expect(isDeepStrictEqual(read.messages, fresh.messages)).toBe(true);
    expect(read.head).toStrictEqual({ value: await store.getWorkflowHead(head.owner, head.workflowId) });

    // And keeps them: the next read in this container names the run and the head alone.
    sent.length = 0;
    await store.getRunWithMessages(run.runId, hint, { messageCount: 7 });
    expect(sent).toEqual(['BatchGetItemCommand']);
    expect(asked[1]).toHaveLength(2);
  });

  it('names only the messages the container does not hold', async () => {
    // Prepare: the container read the run at 3 messages; another container then added 4.
    const { store, sent, run, hint } = await seeded();
    const three = await appended(run, 2);
    await store.getRunWithMessages(run.runId, hint, { messageCount: 3 });
    await appended(three, 4);
    const asked = batchKeys(store);
    sent.length = 0;

    // Act
    const read = await store.getRunWithMessages(run.runId, hint, { messageCount: 7 });

    // Assess
    expect(sent).toEqual(['BatchGetItemCommand']);
    expect(asked[0]?.filter((sk) => sk.startsWith('MSG#'))).toEqual(
      [3, 4, 5, 6].map((seq) => keys.message(run.runId, seq).sk),
    );
    expect(isDeepStrictEqual(read.messages, (await freshRead(run)).messages)).toBe(true);
  });

  it('a stale hint (the run moved on since): the messages it named, then the rest by Query, the same transcript', async () => {
    // Prepare: the hint says 4 messages; the run has 9.
    const { store, sent, head, run, hint } = await seeded();
    const moved = await appended(run, 8);

    // Act
    const read = await store.getRunWithMessages(run.runId, hint, { messageCount: 4 });

    // Assess
    expect(sent).toEqual(['BatchGetItemCommand', 'QueryCommand from MSG#000004']);
    expect(read.run).toStrictEqual(moved);
    expect(read.messages.map((m) => m.seq)).toEqual([0, 1, 2, 3, 4, 5, 6, 7, 8]);
    expect(isDeepStrictEqual(read.messages, (await freshRead(run)).messages)).toBe(true);
    expect(read.head).toStrictEqual({ value: await store.getWorkflowHead(head.owner, head.workflowId) });
  });

  it('a hint counting more messages than the run has: the run decides, in one request', async () => {
    // Prepare
    const { store, sent, run, hint } = await seeded();
    const moved = await appended(run, 2);

    // Act
    const read = await store.getRunWithMessages(run.runId, hint, { messageCount: 6 });

    // Assess
    expect(sent).toEqual(['BatchGetItemCommand']);
    expect(read.run).toStrictEqual(moved);
    expect(read.messages.map((m) => m.seq)).toEqual([0, 1, 2]);
    expect(isDeepStrictEqual(read.messages, (await freshRead(run)).messages)).toBe(true);
  });

  it('a message stored in parts: the messages before it by key, the rest by Query from it', async () => {
    // Prepare: message 2 of 5 is 500,000 bytes of text, over one item's 380,000: a head item and parts.
    const { store, sent, run, hint } = await seeded();
    await appended(run, 4, (seq) => (seq === 2 ? 'x'.repeat(500_000) : `message ${seq}`));

    // Act
    const read = await store.getRunWithMessages(run.runId, hint, { messageCount: 5 });

    // Assess
    expect(sent).toEqual(['BatchGetItemCommand', 'QueryCommand from MSG#000002']);
    expect(read.messages.map((m) => m.seq)).toEqual([0, 1, 2, 3, 4]);
    expect(isDeepStrictEqual(read.messages, (await freshRead(run)).messages)).toBe(true);
  });

  it('messages left unprocessed (over 1 MB of one partition): those before them by key, the rest by Query, not asked again', async () => {
    // Prepare
    const { store, sent, head, run, hint } = await seeded();
    const moved = await appended(run, 6);
    leaveMessagesUnprocessed(store, 4);

    // Act
    const read = await store.getRunWithMessages(run.runId, hint, { messageCount: 7 });

    // Assess
    expect(sent).toEqual(['BatchGetItemCommand', 'QueryCommand from MSG#000004']);
    expect(read.run).toStrictEqual(moved);
    expect(isDeepStrictEqual(read.messages, (await freshRead(run)).messages)).toBe(true);
    expect(read.head).toStrictEqual({ value: await store.getWorkflowHead(head.owner, head.workflowId) });
  });

  it(`a transcript beyond one request's keys (${TURN_READ_MAX_MESSAGES} messages and the run and head): the Query and the head's GetItem, in parallel`, async () => {
    // Prepare: 99 messages to name, one more than a BatchGetItem's 100 keys leave room for.
    const { store, sent, head, run, hint } = await seeded();
    const moved = await appended(run, TURN_READ_MAX_MESSAGES);

    // Act
    const read = await store.getRunWithMessages(run.runId, hint, {
      messageCount: TURN_READ_MAX_MESSAGES + 1,
    });

    // Assess
    expect(sent.sort()).toEqual(['GetItemCommand', 'QueryCommand from MSG#']);
    expect(read.run).toStrictEqual(moved);
    expect(read.messages).toHaveLength(TURN_READ_MAX_MESSAGES + 1);
    expect(isDeepStrictEqual(read.messages, (await freshRead(run)).messages)).toBe(true);
    expect(read.head).toStrictEqual({ value: await store.getWorkflowHead(head.owner, head.workflowId) });
  });

  it(`at the limit (${TURN_READ_MAX_MESSAGES} messages to name) one request`, async () => {
    // Prepare
    const { store, sent, run, hint } = await seeded();
    await appended(run, TURN_READ_MAX_MESSAGES - 1);

    // Act
    const read = await store.getRunWithMessages(run.runId, hint, { messageCount: TURN_READ_MAX_MESSAGES });

    // Assess
    expect(sent).toEqual(['BatchGetItemCommand']);
    expect(isDeepStrictEqual(read.messages, (await freshRead(run)).messages)).toBe(true);
  });
});
