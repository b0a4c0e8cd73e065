/**
 * A run's first turn in a container that holds none of its transcript (shared/store/first-turn-read.ts): the
 * run, its first message and the workflow head by key in one BatchGetItem, and the transcript only when that
 * is certainly all of it; otherwise the Query from seq 0, as without it. Each case compares what it returns
 * with a fresh read by Query in another container.
 */
import { isDeepStrictEqual } from 'node:util';
import { GetCommand } from '@aws-sdk/lib-dynamodb';
import { describe, expect, it } from 'vitest';
import type { Run } from '../../shared/schemas/run.ts';
import { keys } from '../../shared/store/keys.ts';
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

describe('getRunWithMessages on a run’s first turn (firstTurn)', () => {
  it('reads the run, its first message and the head in one BatchGetItem, and returns what the Query returns', async () => {
    // Prepare
    const { store, sent, head, run, hint } = await seeded({ input: { ticket: 'T-1', note: 'é€😀' } });

    // Act
    const read = await store.getRunWithMessages(run.runId, hint, { firstTurn: true });

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
    await store.getRunWithMessages(run.runId, hint, { firstTurn: true });
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
    const read = await store.getRunWithMessages(run.runId, hint, { firstTurn: true });

    // Assess: the batch, then the Query of the run with its whole transcript; the head as the batch read it.
    expect(sent).toEqual(['BatchGetItemCommand', 'QueryCommand from MSG#']);
    const fresh = await freshRead(run);
    expect(read.run).toStrictEqual(fresh.run);
    expect(read.messages).toHaveLength(1);
    expect(isDeepStrictEqual(read.messages, fresh.messages)).toBe(true);
    expect(read.head).toStrictEqual({ value: await store.getWorkflowHead(head.owner, head.workflowId) });
  });

  it('falls back to the Query from seq 0 when the run has more messages than its first', async () => {
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
    const read = await store.getRunWithMessages(run.runId, hint, { firstTurn: true });

    // Assess
    expect(sent).toEqual(['BatchGetItemCommand', 'QueryCommand from MSG#']);
    expect(read.run).toStrictEqual(moved);
    expect(read.messages.map((m) => m.seq)).toEqual([0, 1]);
    expect(isDeepStrictEqual(read.messages, (await freshRead(run)).messages)).toBe(true);
  });

  it('reads as without it (Query and GetItem of the head) when the batch keeps leaving keys unprocessed', async () => {
    // Prepare
    const { store, sent, head, run, hint } = await seeded();
    leaveUnprocessed(store);

    // Act
    const read = await store.getRunWithMessages(run.runId, hint, { firstTurn: true });

    // Assess: the backed-off rounds, then the Query and the head's GetItem.
    expect(sent.filter((name) => name === 'BatchGetItemCommand')).toHaveLength(4);
    expect(sent.slice(4).sort()).toEqual(['GetItemCommand', 'QueryCommand from MSG#']);
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
      { firstTurn: true },
    );
    const noHead = await store.getRunWithMessages(
      run.runId,
      { owner: run.owner, workflowId: 'wf_none' },
      { firstTurn: true },
    );

    // Assess
    expect(missing.run).toBeUndefined();
    expect(noHead.head).toStrictEqual({ value: undefined });
    expect(noHead.run).toStrictEqual(run);
    expect(noHead.messages).toHaveLength(1);
  });
});
