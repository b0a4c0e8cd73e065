/**
 * The container's transcript cache (shared/store/transcript-cache.ts): a turn's read of the run with its
 * transcript reads only the messages after those this store already read, so it no longer grows with the
 * transcript; what it returns is what a fresh read returns; kept messages are frozen; only a prefix without a
 * gap is kept, bounded by runs and bytes.
 */
import { isDeepStrictEqual } from 'node:util';
import { QueryCommand } from '@aws-sdk/lib-dynamodb';
import { describe, expect, it } from 'vitest';
import type { TranscriptMessage } from '../../shared/schemas/message.ts';
import type { Run } from '../../shared/schemas/run.ts';
import { TranscriptCache } from '../../shared/store/transcript-cache.ts';
import { driveRun, engineDeps, ScriptedModel, text, toolUse } from '../support/engine.ts';
import { minimalWorkflow, seedRun, seedWorkflow, testStore } from '../support/store.ts';

/** A store of its own that logs each Query's lower sort key and how many items it returned. */
function loggingStore() {
  const store = testStore();
  const queries: { from: string; items: number }[] = [];
  store.ctx.doc.middlewareStack.add(
    (next, context) => async (args) => {
      const result = await next(args);
      if (context.commandName === 'QueryCommand') {
        const values = (args.input as { ExpressionAttributeValues?: Record<string, unknown> })
          .ExpressionAttributeValues;
        const output = result.output as { Items?: unknown[] };
        queries.push({ from: String(values?.[':from']), items: output.Items?.length ?? 0 });
      }
      return result;
    },
    { step: 'initialize', name: 'queryLog' },
  );
  return { store, queries };
}

const message = (run: Run, seq: number, role: 'user' | 'assistant', bytes = 10): TranscriptMessage => ({
  schemaVersion: 1,
  runId: run.runId,
  seq,
  turn: run.turn,
  role,
  content: [{ type: 'text', text: `${seq}:${'m'.repeat(bytes)}` }],
  createdAt: '2026-11-30T07:00:00.000Z',
});

async function append(store: ReturnType<typeof testStore>, run: Run, messages: TranscriptMessage[]) {
  return store.commit({ run, next: { ...run, messageCount: run.messageCount + messages.length }, messages });
}

describe('transcript cache (getRunWithMessages)', () => {
  it('reads only the messages after those already read, and returns what a fresh read returns', async () => {
    // Prepare: a finished run of two turns (4 messages), read once by this store.
    const { store, queries } = loggingStore();
    const { version } = await seedWorkflow(store, minimalWorkflow());
    const seeded = await seedRun(store, version);
    const model = new ScriptedModel([
      { content: [toolUse('n1', 'notes_append', { name: 'log', line: 'one' })], stopReason: 'tool_use' },
      { content: [text('done')], stopReason: 'end_turn' },
    ]);
    await driveRun(engineDeps(store, model), seeded.runId);
    const first = await store.getRunWithMessages(seeded.runId);
    expect(first.messages).toHaveLength(4);
    // Two more messages, the second over the 400 KB item limit (a head and continuation parts), committed by
    // another container (its own store: this one did not write them, so it must read them).
    const run = await append(testStore(), first.run!, [
      message(first.run!, 4, 'user'),
      message(first.run!, 5, 'assistant', 450_000),
    ]);
    queries.length = 0;

    // Act
    const read = await store.getRunWithMessages(run.runId);

    // Assess: one Query, from the first message not yet read; its items are the two new messages (head and
    // parts) and the run (and the note), not the four read before; the result is a fresh store's full read.
    expect(queries).toHaveLength(1);
    expect(queries[0]?.from).toBe('MSG#000004');
    const fresh = await testStore().getRunWithMessages(run.runId);
    expect(read).toEqual(fresh);
    expect(read.messages.map((m) => m.seq)).toEqual([0, 1, 2, 3, 4, 5]);
    expect(read.run).toEqual(run);
    const { Count: partition = 0 } = await store.ctx.doc.send(
      new QueryCommand({
        TableName: store.ctx.table,
        KeyConditionExpression: 'pk = :pk',
        ExpressionAttributeValues: { ':pk': `RUN#${run.runId}` },
        Select: 'COUNT',
      }),
    );
    expect(queries[0]!.items).toBeLessThan(partition);
    expect(queries[0]!.items).toBe(
      fresh.messages.length - 4 + (await messagePartCount(store, run.runId)) + 2, // + the note and the run
    );
  });

  it('hands out kept messages frozen: a caller cannot change the next turn’s transcript', async () => {
    const store = testStore();
    const { version } = await seedWorkflow(store, minimalWorkflow());
    const run = await seedRun(store, version);
    const read = await store.getRunWithMessages(run.runId);
    const kept = read.messages[0]!;

    expect(() => {
      (kept as { role: string }).role = 'assistant';
    }).toThrow(TypeError);
    expect(() => {
      (kept.content as unknown[]).push({ type: 'text', text: 'injected' });
    }).toThrow(TypeError);
    // The array itself is the caller's own (a turn appends to it).
    read.messages.push(message(run, 1, 'assistant'));
    expect((await store.getRunWithMessages(run.runId)).messages).toEqual(
      (await testStore().getRunWithMessages(run.runId)).messages,
    );
  });

  it('reads the whole transcript again when the run has fewer messages than kept', async () => {
    const { store, queries } = loggingStore();
    const { version } = await seedWorkflow(store, minimalWorkflow());
    const first = await seedRun(store, version);
    const second = await seedRun(store, version);
    await store.getRunWithMessages(first.runId);
    await append(store, second, [message(second, 1, 'assistant')]);
    await store.getRunWithMessages(second.runId);
    // A store whose cache claims the first run has two messages (one more than it has).
    const cache = (store as unknown as { transcripts: TranscriptCache }).transcripts;
    cache.remember(first.runId, [], [message(first, 0, 'user'), message(first, 1, 'assistant')]);
    queries.length = 0;

    const read = await store.getRunWithMessages(first.runId);

    expect(queries.map((q) => q.from)).toEqual(['MSG#000002', 'MSG#']);
    expect(read).toEqual(await testStore().getRunWithMessages(first.runId));
  });
});

describe('transcript cache: messages this container committed', () => {
  /** An assistant message whose tool input has what the store does not keep as it is given. */
  const awkward = (run: Run, seq: number): TranscriptMessage =>
    ({
      ...message(run, seq, 'assistant'),
      stopReason: undefined,
      content: [
        { type: 'text', text: 'calling' },
        {
          type: 'tool_use',
          id: `t${seq}`,
          name: 'notes_append',
          input: {
            ...JSON.parse('{"__proto__": {"polluted": true}}'),
            constructor: { name: 'String' },
            zero: -0,
            gone: undefined,
            list: [1, undefined, 'two', { deep: undefined, kept: null }],
          },
        },
        // Over the 400 KB item limit: the message spans a head and continuation parts.
        { type: 'text', text: 'x'.repeat(450_000) },
        // Too large for a part whole: its input travels as JSON text.
        {
          type: 'tool_use',
          id: `u${seq}`,
          name: 'notes_append',
          input: { zero: -0, big: 'y'.repeat(390_000) },
        },
      ],
    }) as unknown as TranscriptMessage;

  it('reads the run by key alone after its own commits, and returns what a fresh read returns', async () => {
    // Prepare: a run read once, then two commits of this store: an awkward message (fields the store drops or
    // changes, over an item: parts, a tool input carried as JSON), then a plain one.
    const { store, queries } = loggingStore();
    const sent: string[] = [];
    store.ctx.doc.middlewareStack.add(
      (next, context) => async (args) => {
        sent.push(String(context.commandName));
        return next(args);
      },
      { step: 'initialize', name: 'sentLog' },
    );
    const { head, version } = await seedWorkflow(store, minimalWorkflow());
    const seeded = await seedRun(store, version);
    const first = await store.getRunWithMessages(seeded.runId);
    const moved = await append(store, first.run!, [awkward(first.run!, 1)]);
    const run = await append(store, moved, [message(moved, 2, 'user')]);
    queries.length = 0;
    sent.length = 0;

    // Act
    const read = await store.getRunWithMessages(run.runId, {
      owner: head.owner,
      workflowId: head.workflowId,
    });

    // Assess: one BatchGetItem (the run and the head), no Query; the transcript is what another container reads.
    expect(sent).toEqual(['BatchGetItemCommand']);
    expect(queries).toEqual([]);
    const fresh = await testStore().getRunWithMessages(run.runId);
    expect(read.run).toStrictEqual(fresh.run);
    // Node's strict deep equality: prototypes, own fields (an own `__proto__` too), -0 apart from 0, a field
    // set to undefined apart from a missing one. (Vitest's toStrictEqual compares a `constructor` field by
    // reference, so two reads of the same item would differ.)
    expect(read.messages).toEqual(fresh.messages);
    expect(isDeepStrictEqual(read.messages, fresh.messages)).toBe(true);
    expect(read.messages.map((m) => m.seq)).toEqual([0, 1, 2]);
    expect(read.head).toStrictEqual({ value: await store.getWorkflowHead(head.owner, head.workflowId) });
  });

  it('reads the rest by Query when another container committed since', async () => {
    // Prepare: this store holds the transcript up to its own commit; another store commits one more message.
    const { store, queries } = loggingStore();
    const { version } = await seedWorkflow(store, minimalWorkflow());
    const seeded = await seedRun(store, version);
    const first = await store.getRunWithMessages(seeded.runId);
    const mine = await append(store, first.run!, [message(first.run!, 1, 'assistant')]);
    const theirs = await append(testStore(), mine, [message(mine, 2, 'user')]);
    queries.length = 0;

    // Act
    const read = await store.getRunWithMessages(theirs.runId, { owner: theirs.owner, workflowId: 'wf_gone' });

    // Assess: the messages after the two kept, by Query; a head that does not exist reads as none.
    expect(queries.map((q) => q.from)).toEqual(['MSG#000002']);
    expect(read.run).toStrictEqual(theirs);
    expect(read.messages).toStrictEqual((await testStore().getRunWithMessages(theirs.runId)).messages);
    expect(read.head).toStrictEqual({ value: undefined });
  });

  it('keeps nothing of a commit that failed', async () => {
    // Prepare: this store's commit loses to another store's on the same revision.
    const store = testStore();
    const { version } = await seedWorkflow(store, minimalWorkflow());
    const seeded = await seedRun(store, version);
    const first = await store.getRunWithMessages(seeded.runId);
    await append(testStore(), first.run!, [message(first.run!, 1, 'user', 3)]);

    // Act
    await expect(append(store, first.run!, [message(first.run!, 1, 'assistant')])).rejects.toThrow();
    const read = await store.getRunWithMessages(seeded.runId);

    // Assess: the transcript is the winner's.
    expect(read.messages).toStrictEqual((await testStore().getRunWithMessages(seeded.runId)).messages);
    expect(read.messages[1]?.role).toBe('user');
  });
});

describe('TranscriptCache', () => {
  const run = { runId: 'run_a', turn: 0 } as Run;
  const seqs = (messages: readonly TranscriptMessage[]) => messages.map((m) => m.seq);

  it('keeps only the prefix without a gap', () => {
    const cache = new TranscriptCache();
    cache.remember(
      'run_a',
      [],
      [message(run, 0, 'user'), message(run, 1, 'assistant'), message(run, 3, 'user')],
    );
    expect(seqs(cache.get('run_a'))).toEqual([0, 1]);
    cache.remember('run_a', cache.get('run_a'), [message(run, 2, 'user'), message(run, 3, 'assistant')]);
    expect(seqs(cache.get('run_a'))).toEqual([0, 1, 2, 3]);
    cache.remember('run_b', [], [message(run, 1, 'user')]);
    expect(cache.get('run_b')).toEqual([]);
  });

  it('is bounded by runs and by bytes, least recently used first out', () => {
    const cache = new TranscriptCache(2, 40_000);
    cache.remember('run_a', [], [message(run, 0, 'user', 100)]);
    cache.remember('run_b', [], [message(run, 0, 'user', 100)]);
    cache.get('run_a');
    cache.remember('run_c', [], [message(run, 0, 'user', 100)]);
    expect(seqs(cache.get('run_b'))).toEqual([]);
    expect(seqs(cache.get('run_a'))).toEqual([0]);
    // Over half the bytes: not kept at all. Then four of 9 KB each fit, a fifth pushes the oldest out.
    cache.remember('run_d', [], [message(run, 0, 'user', 21_000)]);
    expect(cache.get('run_d')).toEqual([]);
    const big = new TranscriptCache(10, 40_000);
    for (const id of ['x', 'y', 'z', 'w', 'v']) big.remember(id, [], [message(run, 0, 'user', 9_000)]);
    expect(big.size.runs).toBe(4);
    expect(big.size.bytes).toBeLessThanOrEqual(40_000);
    expect(big.get('x')).toEqual([]);
    big.forget('y');
    expect(big.size.runs).toBe(3);
  });
});

async function messagePartCount(store: ReturnType<typeof testStore>, runId: string): Promise<number> {
  const { Items = [] } = await store.ctx.doc.send(
    new QueryCommand({
      TableName: store.ctx.table,
      KeyConditionExpression: 'pk = :pk AND begins_with(sk, :msg)',
      ExpressionAttributeValues: { ':pk': `RUN#${runId}`, ':msg': 'MSG#' },
      ProjectionExpression: 'sk',
    }),
  );
  return Items.filter((item) => /^MSG#\d{6}#\d{4}$/.test(String(item.sk))).length;
}
