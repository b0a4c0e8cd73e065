/**
 * Group commit of the owner anchor chain (shared/store/anchor-group.ts): a burst of run endings of one owner
 * is anchored in a few rounds, each head once, and a head registered by a run that then crashed is anchored
 * by its own retry or by the owner's next group. Counted on the store's client: attempts and transactions.
 */

import { TransactWriteCommand } from '@aws-sdk/lib-dynamodb';
import { describe, expect, it } from 'vitest';
import { type OwnerAnchor, sealOwnerAnchor, verifyOwnerChain } from '../../shared/audit/index.ts';
import { RunHandle } from '../../shared/core/engine.ts';
import type { Run } from '../../shared/schemas/run.ts';
import { listPendingAnchors, registerPendingAnchor } from '../../shared/store/anchor-group.ts';
import type { DynamoStore } from '../../shared/store/index.ts';
import { keys } from '../../shared/store/keys.ts';
import { FixedClock, minimalWorkflow, seedRun, seedWorkflow, testStore } from '../support/store.ts';

const at = new Date(new FixedClock().nowMs()).toISOString();
const MAX_ATTEMPTS = 25;

/** The sort key a request names, marshalled or not. */
const sortKey = (key: unknown): string | undefined => {
  const sk = (key as { sk?: unknown } | undefined)?.sk;
  return typeof sk === 'string' ? sk : ((sk as { S?: string } | undefined)?.S ?? undefined);
};

/** A store whose requests are counted: by command, anchor-transaction outcomes, attempts per run (marker reads). */
function countedStore(beforeAnchorTransaction?: () => Promise<void>) {
  const store = testStore();
  const counts = {
    commands: {} as Record<string, number>,
    anchorTransactions: 0,
    anchorCommitted: 0,
    registerTransactions: 0,
    attempts: new Map<string, number>(),
  };
  store.ctx.doc.middlewareStack.add(
    (next, context) => async (args) => {
      const name = String(context.commandName);
      counts.commands[name] = (counts.commands[name] ?? 0) + 1;
      const input = args.input as { Key?: unknown; TransactItems?: unknown[] };
      const marker = sortKey(input.Key);
      if (name.startsWith('Get') && marker?.startsWith('ANCHORRUN#')) {
        const runId = marker.slice('ANCHORRUN#'.length);
        counts.attempts.set(runId, (counts.attempts.get(runId) ?? 0) + 1);
      }
      const text = JSON.stringify(input.TransactItems ?? []);
      const anchoring = text.includes('"ANCHORHEAD"');
      if (anchoring) {
        counts.anchorTransactions += 1;
        await beforeAnchorTransaction?.();
      } else if (text.includes('"ANCHORPENDING#')) counts.registerTransactions += 1;
      const result = await next(args);
      if (anchoring) counts.anchorCommitted += 1;
      return result;
    },
    { step: 'initialize', name: 'anchorCounter' },
  );
  return { store, counts };
}

async function runsOfOneOwner(store: DynamoStore, n: number): Promise<Run[]> {
  const { version } = await seedWorkflow(store, minimalWorkflow());
  return Promise.all(Array.from({ length: n }, () => seedRun(store, version)));
}

async function assertChain(store: DynamoStore, owner: string, runs: readonly Run[]) {
  const items = await store.listOwnerAnchorItems(owner);
  expect(verifyOwnerChain(items, { owner })).toMatchObject({ ok: true, count: runs.length });
  expect(new Set(items.map((item) => (item as { runId: string }).runId))).toEqual(
    new Set(runs.map((run) => run.runId)),
  );
  expect(await listPendingAnchors(store.ctx, owner)).toEqual([]);
}

describe('Owner anchor chain: group commit', () => {
  it('anchors a burst of 60 endings of one owner in a few rounds, each head once, well within the attempt bound', async () => {
    // Prepare
    const { store, counts } = countedStore();
    const runs = await runsOfOneOwner(store, 60);
    const owner = runs[0]!.owner;

    // Act
    const results = await Promise.allSettled(runs.map((run) => store.anchorRunHead(run, at)));

    // Assess: all anchored, once each; groups wrote many anchors per transaction; no run came near the bound.
    expect(results.filter((result) => result.status === 'rejected')).toEqual([]);
    await assertChain(store, owner, runs);
    expect(counts.anchorCommitted).toBeLessThan(runs.length / 3);
    expect(counts.anchorTransactions).toBeLessThan(runs.length * 3);
    expect(counts.attempts.size).toBe(runs.length);
    expect(Math.max(...counts.attempts.values())).toBeLessThanOrEqual(MAX_ATTEMPTS / 2);
    for (const [index, result] of results.entries())
      expect(result.status === 'fulfilled' && result.value).toMatchObject({
        runId: runs[index]!.runId,
        runHead: runs[index]!.audit.head,
      });

    // Act: every call again (a retried Deliver).
    const before = { ...counts, commands: { ...counts.commands } };
    const again = await Promise.all(runs.map((run) => store.anchorRunHead(run, at)));

    // Assess: the same anchors, read back without a single transaction.
    expect(again).toEqual(results.map((result) => result.status === 'fulfilled' && result.value));
    expect(counts.anchorTransactions).toBe(before.anchorTransactions);
    expect(counts.registerTransactions).toBe(before.registerTransactions);
    await assertChain(store, owner, runs);
  });

  it('keeps owners apart: two bursts at once each make their own chain', async () => {
    // Prepare
    const store = testStore();
    const [a, b] = await Promise.all([runsOfOneOwner(store, 20), runsOfOneOwner(store, 20)]);

    // Act
    await Promise.all([...a!, ...b!].map((run) => store.anchorRunHead(run, at)));

    // Assess
    await assertChain(store, a![0]!.owner, a!);
    await assertChain(store, b![0]!.owner, b!);
  });

  it('makes no more requests uncontended than before group commit: two reads and one transaction', async () => {
    // Prepare
    const { store, counts } = countedStore();
    const [run] = await runsOfOneOwner(store, 1);
    const seeded = { ...counts.commands };

    // Act
    await store.anchorRunHead(run!, at);

    // Assess: the marker and the head read, one transaction (anchor, head, marker, pending item deleted).
    const sent = Object.entries(counts.commands).flatMap(([name, n]) =>
      n > (seeded[name] ?? 0) ? [[name, n - (seeded[name] ?? 0)]] : [],
    );
    expect(Object.fromEntries(sent)).toEqual({ GetItemCommand: 2, TransactWriteItemsCommand: 1 });
    expect(counts.registerTransactions).toBe(0);
  });

  it('anchors a head registered by a run that then crashed when the run is retried, once', async () => {
    // Prepare: the run lost a round, registered its head and crashed.
    const store = testStore();
    const [run] = await runsOfOneOwner(store, 1);
    await registerPendingAnchor(store.ctx, headOf(run!), undefined);

    // Act: Step Functions retries its Deliver; then once more.
    const anchor = await store.anchorRunHead(run!, at);
    const again = await store.anchorRunHead(run!, at);

    // Assess
    expect(anchor).toMatchObject({ runId: run!.runId, runHead: run!.audit.head, seq: 0 });
    expect(again).toEqual(anchor);
    await assertChain(store, run!.owner, [run!]);
  });

  it("anchors a crashed run's registered head in the next group commit of its owner", async () => {
    // Prepare: run `crashed` registered its head and crashed; run `loser` loses its first round to `winner`.
    const plain = testStore();
    const [crashed, loser, winner] = await runsOfOneOwner(plain, 3);
    await registerPendingAnchor(plain.ctx, headOf(crashed!), undefined);
    const { store, counts } = losingFirstRound(plain, winner!);

    // Act
    const anchor = await store.anchorRunHead(loser!, at);

    // Assess: the loser's group anchored the crashed run's head too, in one transaction.
    expect(anchor.runId).toBe(loser!.runId);
    expect(counts.registerTransactions).toBe(1);
    expect(counts.anchorCommitted).toBe(1);
    expect(await plain.getRunAnchor(crashed!.owner, crashed!.runId)).toMatchObject({
      runHead: crashed!.audit.head,
    });
    await assertChain(plain, crashed!.owner, [crashed!, loser!, winner!]);

    // Act: the crashed run's retry finds its head anchored and writes nothing.
    const retried = await plain.anchorRunHead(crashed!, at);

    // Assess
    expect(retried).toEqual(await plain.getRunAnchor(crashed!.owner, crashed!.runId));
    await assertChain(plain, crashed!.owner, [crashed!, loser!, winner!]);
  });

  it('anchors a reopened run at its later head over its registered earlier one, and a stale retry returns it', async () => {
    // Prepare: a run registered its head and crashed; then it was reopened (a graph step retry) and grew.
    const store = testStore();
    const [run] = await runsOfOneOwner(store, 1);
    await registerPendingAnchor(store.ctx, headOf(run!), undefined);
    const grown = await new RunHandle(run!, { store, clock: new FixedClock() }).commit({
      audit: [{ type: 'graph_operation', actor: 'owner:test', data: { operation: 'retry_step' } }],
    });

    // Act: it ends again and is anchored; then the crashed call is retried with the run it had read.
    const later = await store.anchorRunHead(grown, at);
    const stale = await store.anchorRunHead(run!, at);

    // Assess: one anchor, at the later head; the earlier pending head is gone, not anchored.
    expect(later).toMatchObject({ runId: run!.runId, runHead: grown.audit.head, seq: 0 });
    expect(stale).toEqual(later);
    await assertChain(store, run!.owner, [run!]);
  });

  it('repairs a pending head whose run an older writer anchored meanwhile, instead of stalling every group', async () => {
    // Prepare: `stuck` registered its head, then a writer without group commit anchored that head (its pending
    // item stays: every group that includes it fails on its marker). `loser` then loses a round to `winner`.
    const plain = testStore();
    const [stuck, loser, winner] = await runsOfOneOwner(plain, 3);
    await registerPendingAnchor(plain.ctx, headOf(stuck!), undefined);
    await anchorWithoutGroupCommit(plain, stuck!, undefined);
    const { store, counts } = losingFirstRound(plain, winner!);

    // Act
    const anchor = await store.anchorRunHead(loser!, at);

    // Assess: the stale item went (its head was anchored), the loser anchored within a few attempts, once each.
    expect(anchor.runId).toBe(loser!.runId);
    expect(counts.attempts.get(loser!.runId)).toBeLessThanOrEqual(4);
    await assertChain(plain, stuck!.owner, [stuck!, loser!, winner!]);
  });

  it('repairs a pending later head whose run an older writer anchored at an earlier head: it is still anchored', async () => {
    // Prepare: a reopened run registered its later head; a writer without group commit anchored its earlier head.
    const plain = testStore();
    const [run, loser, winner] = await runsOfOneOwner(plain, 3);
    const grown = await new RunHandle(run!, { store: plain, clock: new FixedClock() }).commit({
      audit: [{ type: 'graph_operation', actor: 'owner:test', data: { operation: 'retry_step' } }],
    });
    await registerPendingAnchor(plain.ctx, headOf(grown), undefined);
    await anchorWithoutGroupCommit(plain, run!, undefined);
    const { store } = losingFirstRound(plain, winner!);

    // Act
    await store.anchorRunHead(loser!, at);

    // Assess: the later head was anchored after the earlier one; the chain verifies, nothing waits.
    expect(await plain.getRunAnchor(run!.owner, run!.runId)).toMatchObject({ runHead: grown.audit.head });
    const items = await plain.listOwnerAnchorItems(run!.owner);
    expect(verifyOwnerChain(items, { owner: run!.owner })).toMatchObject({ ok: true, count: 4 });
    expect(await listPendingAnchors(plain.ctx, run!.owner)).toEqual([]);
  });

  it('is not held up by the heads of crashed runs that sort first: a waiting run commits them with its own', async () => {
    // Prepare: 33 runs registered their heads and crashed (first in key order, `-` sorts before any hex digit: a
    // full group nobody commits);
    // `loser` then loses its first round to `winner`.
    const plain = testStore();
    const [loser, winner] = await runsOfOneOwner(plain, 2);
    const owner = loser!.owner;
    const crashed = Array.from({ length: 33 }, (_, i) => ({
      ...headOf(loser!),
      runId: `run_-${String(i).padStart(4, '0')}`,
      runHeadSeq: 0,
    }));
    for (const head of crashed) await registerPendingAnchor(plain.ctx, head, undefined);
    const { store, counts } = losingFirstRound(plain, winner!);

    // Act
    const anchor = await store.anchorRunHead(loser!, at);

    // Assess: past its patience it committed its own head with 32 crashed ones (a full transaction), in time.
    expect(anchor.runId).toBe(loser!.runId);
    expect(counts.attempts.get(loser!.runId)).toBeGreaterThan(8);
    expect(counts.attempts.get(loser!.runId)).toBeLessThan(MAX_ATTEMPTS);
    expect(counts.anchorCommitted).toBe(1);
    const items = await plain.listOwnerAnchorItems(owner);
    expect(verifyOwnerChain(items, { owner })).toMatchObject({ ok: true, count: 1 + 33 });
    expect(await listPendingAnchors(plain.ctx, owner)).toHaveLength(1);
  });

  it('lets a stale call anchor nothing while a later head of its run waits: a group anchors the later one', async () => {
    // Prepare: the later head of a reopened run is registered (its call lost a round, then crashed).
    const store = testStore();
    const [run, other] = await runsOfOneOwner(store, 2);
    const grown = await new RunHandle(run!, { store, clock: new FixedClock() }).commit({
      audit: [{ type: 'graph_operation', actor: 'owner:test', data: { operation: 'retry_step' } }],
    });
    await registerPendingAnchor(store.ctx, headOf(grown), undefined);

    // Act: a stale call with the earlier head.
    const stale = await store.anchorRunHead(run!, at);

    // Assess: it anchored the later head (by a group), never the earlier one.
    expect(stale).toMatchObject({ runId: run!.runId, runHead: grown.audit.head });
    await assertChain(store, run!.owner, [run!]);
    expect(await store.anchorRunHead(other!, at)).toMatchObject({ seq: 1 });
  });
});

/** A run's head anchored the way a writer without group commit did: no pending item deleted with it. */
async function anchorWithoutGroupCommit(store: DynamoStore, run: Run, head: OwnerAnchor | undefined) {
  const anchor = sealOwnerAnchor(head, headOf(run));
  await store.ctx.doc.send(
    new TransactWriteCommand({
      TransactItems: [
        {
          Put: {
            TableName: store.ctx.table,
            Item: { ...keys.ownerAnchor(run.owner, anchor.seq), ...anchor },
          },
        },
        { Put: { TableName: store.ctx.table, Item: { ...keys.ownerAnchorHead(run.owner), anchor } } },
        {
          Put: {
            TableName: store.ctx.table,
            Item: { ...keys.ownerAnchorRun(run.owner, run.runId), anchorSeq: anchor.seq },
          },
        },
      ],
    }),
  );
  return anchor;
}

/** A store whose first anchor transaction loses the head to `winner` (anchored through `plain`). */
function losingFirstRound(plain: DynamoStore, winner: Run) {
  let raced = false;
  return countedStore(async () => {
    if (raced) return;
    raced = true;
    await plain.anchorRunHead(winner, at);
  });
}

const headOf = (run: Run) => ({
  owner: run.owner,
  at,
  runId: run.runId,
  runHeadSeq: Math.max(0, run.audit.seq - 1),
  runHead: run.audit.head,
});
