/**
 * Ending a run from outside a turn (shared/core/end-run.ts) reads the run and its transcript in one request
 * where the store can (`getRunWithMessages`), not a GetItem and then a Query; a transcript that does not hold
 * the run's `messageCount` messages (a commit landed while it was read) is read again, never used.
 */
import { describe, expect, inject, it } from 'vitest';
import { markRunFailed } from '../../shared/core/mark-failed.ts';
import { runTurn } from '../../shared/core/turn.ts';
import { cancelRun } from '../../shared/runs/cancel-run.ts';
import { DynamoStore } from '../../shared/store/index.ts';
import { engineDeps, ScriptedModel, text, toolUse } from '../support/engine.ts';
import { FixedClock, minimalWorkflow, seedRun, seedWorkflow } from '../support/store.ts';
import { withStoreOverrides } from '../support/store-overrides.ts';

/** A store of its own that logs the DynamoDB requests it sends, by command. */
function countingStore() {
  const { endpoint, tableName } = inject('dynamodb');
  const store = new DynamoStore({ endpoint, tableName });
  const sent: string[] = [];
  store.ctx.doc.middlewareStack.add(
    (next, context) => async (args) => {
      sent.push(String(context.commandName).replace(/Command$/, ''));
      return next(args);
    },
    { step: 'initialize', name: 'requestCounter' },
  );
  return { store, sent };
}

/**
 * A run after one turn whose call ran and was answered: running, its transcript ends with the results. The turn
 * runs in a container of its own (the Turn function's), so `store` (the ending's) holds none of the transcript.
 */
async function runningAfterOneCall(store: DynamoStore) {
  const { version } = await seedWorkflow(store, minimalWorkflow());
  const run = await seedRun(store, version);
  const model = new ScriptedModel([
    { content: [toolUse('t1', 'current_time', {})], stopReason: 'tool_use' },
    { content: [text('done')], stopReason: 'end_turn' },
  ]);
  const { endpoint, tableName } = inject('dynamodb');
  const turnStore = new DynamoStore({ endpoint, tableName });
  const first = await runTurn(engineDeps(turnStore, model), {
    runId: run.runId,
    turn: 0,
    segmentStartTurn: 0,
  });
  expect(first.next).toBe('continue');
  return run.runId;
}

const failure = { name: 'States.TaskFailed', message: 'x' };

describe('ending a run reads the run and its transcript together', () => {
  it('one Query for run and transcript, where a GetItem then a Query went one after the other', async () => {
    // Prepare
    const { store, sent } = countingStore();
    const runId = await runningAfterOneCall(store);
    sent.length = 0;

    // Act
    const ended = await markRunFailed({ store, clock: new FixedClock() }, { runId, error: failure });

    // Assess: MarkFailed's own look at the run (is it a failed delivery?), then the ending's one Query (nothing
    // open: the call was answered, so no ledger read), then the transaction.
    expect(ended?.status).toBe('failed');
    expect(sent.slice(0, sent.indexOf('TransactWriteItems'))).toEqual(['GetItem', 'Query']);
  });

  it('reads the transcript again when it does not hold the run’s messages, and commits at the first try', async () => {
    // Prepare: the requests of a plain ending, for reference; then a store whose one read misses the last
    // message (the tool results), as if read while they were being committed.
    const { store, sent } = countingStore();
    const reference = await runningAfterOneCall(store);
    sent.length = 0;
    await markRunFailed({ store, clock: new FixedClock() }, { runId: reference, error: failure });
    const plain = [...sent];
    const runId = await runningAfterOneCall(store);
    const stale = withStoreOverrides(store, {
      getRunWithMessages: async (id: string) => {
        const read = await store.getRunWithMessages(id);
        return { ...read, messages: read.messages.slice(0, -1) };
      },
    });
    sent.length = 0;

    // Act
    const ended = await markRunFailed({ store: stale, clock: new FixedClock() }, { runId, error: failure });

    // Assess: the short transcript was not used (it shows the call open: answering it again would collide
    // with the stored results, fail the transaction and go round again): read again, then exactly a plain
    // ending's requests; no message added.
    expect(ended?.status).toBe('failed');
    expect(sent).toEqual([...plain.slice(0, 2), 'Query', ...plain.slice(2)]);
    const messages = await store.listMessages(runId);
    expect(messages).toHaveLength(ended?.messageCount ?? -1);
    expect(messages.at(-1)?.role).toBe('user');
  });
});

describe("cancelling another owner's run", () => {
  it('costs the one read a missing id costs, and reads none of its messages', async () => {
    // Prepare: bob's run with a transcript over 1 MB (several pages of messages)
    const { store, sent } = countingStore();
    const runId = await runningAfterOneCall(store);
    const run = (await store.getRun(runId))!;
    const big = 'x'.repeat(300_000);
    const handle = await store.commit({
      run,
      next: { ...run, messageCount: run.messageCount + 4 },
      messages: [0, 1, 2, 3].map((i) => ({
        schemaVersion: 1 as const,
        runId,
        seq: run.messageCount + i,
        turn: run.turn,
        role: i % 2 === 0 ? ('user' as const) : ('assistant' as const),
        content: [{ type: 'text' as const, text: big }],
        createdAt: run.createdAt,
      })),
    });
    expect(handle.messageCount).toBe(run.messageCount + 4);
    const deps = { store, executions: { stop: async () => {} } as never, clock: new FixedClock() };
    sent.length = 0;

    // Act
    const foreign = await cancelRun(deps, { owner: 'someone-else', runId, actor: 'user:someone-else' });
    const foreignRequests = [...sent];
    sent.length = 0;
    const missing = await cancelRun(deps, { owner: 'someone-else', runId: 'run_missing', actor: 'x' });

    // Assess: both undefined, after the same single GetItem; the run is untouched
    expect(foreign).toBeUndefined();
    expect(missing).toBeUndefined();
    expect(foreignRequests).toEqual(['GetItem']);
    expect(sent).toEqual(['GetItem']);
    expect((await store.getRun(runId))?.status).toBe('running');
  });
});
