/**
 * The audit item layout (shared/store/audit-items.ts): the entries sealed by one transaction are stored in one
 * item; items of the older layout (one entry per item) still read and verify, alone or followed by new ones;
 * and tampering with an entry inside a batch item fails verification as it did entry by entry.
 */
import { beforeAll, describe, expect, it } from 'vitest';
import { type AuditEntry, computeAuditEntryHash, verifyAuditChain } from '../../shared/audit/index.ts';
import { DYNAMO_ITEM_LIMIT_BYTES, itemBytes } from '../../shared/core/item-size.ts';
import type { AuditInput } from '../../shared/core/store-port.ts';
import type { Run } from '../../shared/schemas/run.ts';
import type { WorkflowVersion } from '../../shared/schemas/workflow-record.ts';
import { auditEntriesOf, auditItems } from '../../shared/store/audit-items.ts';
import { type DynamoStore, ItemCorruptError, keys } from '../../shared/store/index.ts';
import { replaceAuditItems, storedAuditItems } from '../support/audit-items.ts';
import { minimalWorkflow, seedRun, seedWorkflow, testStore } from '../support/store.ts';

let store: DynamoStore;
beforeAll(() => {
  store = testStore();
});

const inputs = (count: number, data: Record<string, unknown> = {}): AuditInput[] =>
  Array.from({ length: count }, (_, i) => ({
    type: 'gate_decision',
    actor: 'system',
    data: { call: i, ...data },
  }));

/** A run whose chain holds run_created, then `count` entries committed by ONE transaction. */
async function runWithCommit(
  count: number,
  data?: Record<string, unknown>,
  version?: WorkflowVersion,
): Promise<Run> {
  // Created without turn 0's reservation, so run_created is the creation's only entry.
  const run = await seedRun(store, version ?? (await seedWorkflow(store, minimalWorkflow())).version, {
    firstTurn: false,
  });
  return store.commit({ run, next: { ...run, status: 'running' }, audit: inputs(count, data) });
}

const verify = async (run: Run) => {
  const stored = (await store.getRun(run.runId))!;
  return verifyAuditChain(await store.listAuditItems(run.runId), {
    owner: stored.owner,
    runId: stored.runId,
    expectedHead: { seq: stored.audit.seq - 1, hash: stored.audit.head },
  });
};

/** Rewrites the run's stored items: `edit` gets each item's entries and returns the new ones. */
async function rewrite(run: Run, edit: (entries: AuditEntry[][]) => AuditEntry[][]) {
  const items = await storedAuditItems(store, run.runId);
  const groups = edit(items.map((item) => auditEntriesOf([item]) as AuditEntry[]));
  await replaceAuditItems(
    store,
    run.runId,
    groups.filter((g) => g.length > 0).map((g) => ({ ...keys.audit(run.runId, g[0]!.seq), entries: g })),
  );
}

describe('audit item layout', () => {
  it('stores the entries of one transaction in one item, readable and verifiable in order', async () => {
    const run = await runWithCommit(4);

    const items = await storedAuditItems(store, run.runId);

    // run_created (its own transaction), then the four of the commit together.
    expect(items.map((item) => item.sk)).toEqual([keys.audit(run.runId, 0).sk, keys.audit(run.runId, 1).sk]);
    expect((items[1]!.entries as AuditEntry[]).map((entry) => entry.seq)).toEqual([1, 2, 3, 4]);
    expect((await store.listAudit(run.runId)).map((entry) => entry.seq)).toEqual([0, 1, 2, 3, 4]);
    expect(await verify(run)).toMatchObject({ ok: true, count: 5 });
  });

  it('reads and verifies entries stored one per item (the older layout), alone and followed by new items', async () => {
    const run = await runWithCommit(3);
    const entries = await store.listAudit(run.runId);
    // As a table written before the batch layout holds them: one item per entry, the entry's fields at top level.
    await replaceAuditItems(
      store,
      run.runId,
      entries.map((entry) => ({ ...keys.audit(run.runId, entry.seq), ...entry })),
    );
    expect(await store.listAudit(run.runId)).toEqual(entries);
    expect(await verify(run)).toMatchObject({ ok: true, count: 4 });

    // The run goes on under the new layout: its next commit adds one item after the old ones.
    const moved = await store.commit({
      run: (await store.getRun(run.runId))!,
      next: { ...run, status: 'cancelled' },
      audit: inputs(2),
    });
    const items = await storedAuditItems(store, run.runId);
    expect(items).toHaveLength(5);
    expect(items[4]!.entries).toHaveLength(2);
    expect((await store.listAudit(run.runId)).map((entry) => entry.seq)).toEqual([0, 1, 2, 3, 4, 5]);
    expect(await verify(moved)).toMatchObject({ ok: true, count: 6 });
  });

  it('splits the entries of one transaction over several items only past the 400 KB item limit', async () => {
    // Three entries of ~150 KB: two fit in one item, the third starts another.
    const run = await runWithCommit(3, { blob: 'b'.repeat(150 * 1024) });

    const items = await storedAuditItems(store, run.runId);

    expect(items.map((item) => (item.entries as AuditEntry[]).map((entry) => entry.seq))).toEqual([
      [0],
      [1, 2],
      [3],
    ]);
    for (const item of items) expect(itemBytes(item)).toBeLessThanOrEqual(DYNAMO_ITEM_LIMIT_BYTES);
    expect(await verify(run)).toMatchObject({ ok: true, count: 4 });
  });

  it('keeps every group within the limit and every entry in order, whatever the sizes', () => {
    const sizes = [1, 390, 5, 200, 200, 1, 399, 30];
    const entries = sizes.map(
      (kb, seq) =>
        ({
          schemaVersion: 1,
          owner: 'o',
          runId: 'r',
          seq,
          at: '2026-11-30T07:00:00.000Z',
          type: 'error',
          actor: 'system',
          data: { pad: 'x'.repeat(kb * 1000) },
          prevHash: '0'.repeat(64),
          hash: '1'.repeat(64),
        }) satisfies AuditEntry,
    );

    const items = auditItems('r', entries);

    expect(auditEntriesOf(items)).toEqual(entries);
    for (const item of items) expect(itemBytes(item)).toBeLessThanOrEqual(DYNAMO_ITEM_LIMIT_BYTES);
    expect(items.length).toBeLessThan(entries.length);
  });

  it.each([
    ['at the byte', 0],
    ['one byte short of it', -1],
    ['one byte past it', 1],
  ])(
    'fills each item as far as it goes: the next entry would pass the limit (an entry ending %s)',
    (_name, delta) => {
      const entry = (seq: number, pad: number): AuditEntry => ({
        schemaVersion: 1,
        owner: 'o',
        runId: 'r',
        seq,
        at: '2026-11-30T07:00:00.000Z',
        type: 'error',
        actor: 'system',
        data: { pad: 'x'.repeat(pad) },
        prevHash: '0'.repeat(64),
        hash: '1'.repeat(64),
      });
      // Two entries, the second padded so that the item of both is exactly the limit plus `delta`.
      const first = entry(0, 100_000);
      const both = itemBytes({ ...keys.audit('r', 0), entries: [first, entry(1, 0)] });
      const entries = [first, entry(1, DYNAMO_ITEM_LIMIT_BYTES - both + delta), entry(2, 10)];

      const items = auditItems('r', entries);

      const seqs = items.map((item) => (item.entries as AuditEntry[]).map((e) => e.seq));
      expect(seqs).toEqual(delta > 0 ? [[0], [1, 2]] : [[0, 1], [2]]);
      for (const item of items) expect(itemBytes(item)).toBeLessThanOrEqual(DYNAMO_ITEM_LIMIT_BYTES);
    },
  );

  describe('compact items', () => {
    /** The run's stored compact item (its commit's entries) edited raw, as an attacker with write access could. */
    async function editCompact(run: Run, edit: (item: Record<string, unknown>) => Record<string, unknown>) {
      const items = await storedAuditItems(store, run.runId);
      await replaceAuditItems(store, run.runId, [items[0]!, edit(structuredClone(items[1]!))]);
    }
    const storedEntries = (item: Record<string, unknown>) => item.entries as Record<string, unknown>[];

    it('stores what the entries of one transaction share once, and each prevHash but the first as its link', async () => {
      // Act
      const run = await runWithCommit(4);

      // Assess: owner, run, time and schema version once; entries 2–4 without them and without prevHash.
      const items = await storedAuditItems(store, run.runId);
      const entries = await store.listAudit(run.runId);
      expect(items[1]!.common).toEqual({
        schemaVersion: 1,
        owner: run.owner,
        runId: run.runId,
        at: entries[1]!.at,
      });
      expect(storedEntries(items[1]!).map((entry) => Object.keys(entry).sort())).toEqual([
        ['actor', 'data', 'hash', 'prevHash', 'seq', 'type'],
        ['actor', 'data', 'hash', 'seq', 'type'],
        ['actor', 'data', 'hash', 'seq', 'type'],
        ['actor', 'data', 'hash', 'seq', 'type'],
      ]);
      // They read back whole, field for field as sealed, and verify; the item is smaller than the whole entries.
      const whole = { ...keys.audit(run.runId, 1), entries: entries.slice(1) };
      expect(auditEntriesOf([items[1]!])).toEqual(entries.slice(1));
      expect(auditEntriesOf([items[1]!]).map((entry) => Object.keys(entry as object))).toEqual(
        entries.slice(1).map((entry) => Object.keys(entry)),
      );
      expect(itemBytes(items[1]!)).toBeLessThan(itemBytes(whole) - 3 * 64);
      expect(await verify(run)).toMatchObject({ ok: true, count: 5 });
    });

    it('reads whole batch items and compact ones in one chain', async () => {
      // Prepare: the commit's entries stored whole (a table written before the compact form), then a commit.
      const run = await runWithCommit(3);
      await rewrite(run, (groups) => groups);
      expect((await storedAuditItems(store, run.runId))[1]!.common).toBeUndefined();

      // Act
      const moved = await store.commit({
        run: (await store.getRun(run.runId))!,
        next: { ...run, status: 'cancelled' },
        audit: inputs(2),
      });

      // Assess
      const items = await storedAuditItems(store, run.runId);
      expect(items.map((item) => item.common === undefined)).toEqual([true, true, false]);
      expect((await store.listAudit(run.runId)).map((entry) => entry.seq)).toEqual([0, 1, 2, 3, 4, 5]);
      expect(await verify(moved)).toMatchObject({ ok: true, count: 6 });
    });

    type Case = [string, (item: Record<string, unknown>) => Record<string, unknown>, number, string];
    const cases: Case[] = [
      [
        'the shared time changed',
        (item) => ({ ...item, common: { ...(item.common as object), at: '2020-01-01T00:00:00.000Z' } }),
        1,
        'hash_mismatch',
      ],
      [
        'an entry edited',
        (item) => ({
          ...item,
          entries: storedEntries(item).map((e) => (e.seq === 3 ? { ...e, data: { call: 9 } } : e)),
        }),
        3,
        'hash_mismatch',
      ],
      [
        'an entry edited and its hash recomputed',
        (item) => {
          const [first] = auditEntriesOf([item]) as AuditEntry[];
          const entries = storedEntries(item).map((e) => {
            if (e.seq !== 2) return e;
            const body = { ...first!, ...e, prevHash: first!.hash, data: { call: 9 } };
            const { hash: _old, ...unsealed } = body;
            return { ...e, data: { call: 9 }, hash: computeAuditEntryHash(unsealed) };
          });
          return { ...item, entries };
        },
        3,
        'hash_mismatch',
      ],
      [
        'an entry dropped',
        (item) => ({ ...item, entries: storedEntries(item).filter((e) => e.seq !== 2) }),
        2,
        'seq_gap',
      ],
      [
        'a field added to what the entries share',
        (item) => ({ ...item, common: { ...(item.common as object), note: 'unhashed' } }),
        1,
        'schema',
      ],
      [
        'the shared run changed',
        (item) => ({ ...item, common: { ...(item.common as object), runId: 'run_someoneelse' } }),
        1,
        'wrong_run',
      ],
    ];
    it.each(cases)('fails verification with %s', async (_name, edit, firstBrokenSeq, reason) => {
      const run = await runWithCommit(4);
      expect(await verify(run)).toMatchObject({ ok: true });

      await editCompact(run, edit);

      expect(await verify(run)).toMatchObject({ ok: false, firstBrokenSeq, reason });
    });
  });

  describe('tampering inside a batch item fails verification', () => {
    type Case = [string, (groups: AuditEntry[][]) => AuditEntry[][], number, string];
    const reseal = (entry: AuditEntry): AuditEntry => {
      const { hash: _old, ...body } = entry;
      return { ...body, hash: computeAuditEntryHash(body) };
    };
    const cases: Case[] = [
      [
        'edit an entry',
        ([first, batch]) => [first!, batch!.map((e) => (e.seq === 2 ? { ...e, data: { call: 9 } } : e))],
        2,
        'hash_mismatch',
      ],
      [
        'edit an entry and recompute its hash',
        ([first, batch]) => [
          first!,
          batch!.map((e) => (e.seq === 2 ? reseal({ ...e, data: { call: 9 } }) : e)),
        ],
        3,
        'prev_hash_mismatch',
      ],
      ['delete an entry', ([first, batch]) => [first!, batch!.filter((e) => e.seq !== 2)], 2, 'seq_gap'],
      ['delete the last entry', ([first, batch]) => [first!, batch!.slice(0, -1)], 4, 'head_mismatch'],
      ['delete the whole batch item', ([first]) => [first!], 1, 'head_mismatch'],
      [
        'reorder two entries',
        ([first, batch]) => [first!, [batch![1]!, batch![0]!, ...batch!.slice(2)]],
        1,
        'seq_gap',
      ],
    ];
    it.each(cases)('%s', async (_name, edit, firstBrokenSeq, reason) => {
      const run = await runWithCommit(4);
      expect(await verify(run)).toMatchObject({ ok: true });

      await rewrite(run, edit);

      expect(await verify(run)).toMatchObject({ ok: false, firstBrokenSeq, reason });
    });

    it('splice an entry of another run of the same owner', async () => {
      const { version } = await seedWorkflow(store, minimalWorkflow());
      const run = await runWithCommit(4, {}, version);
      const other = await runWithCommit(4, {}, version);
      const foreign = (await store.listAudit(other.runId))[2]!;

      await rewrite(run, ([first, batch]) => [first!, batch!.map((e) => (e.seq === 2 ? foreign : e))]);

      expect(await verify(run)).toMatchObject({ ok: false, firstBrokenSeq: 2, reason: 'wrong_run' });
    });

    it('an attribute added beside the entries makes the item unreadable as a batch (schema)', async () => {
      const run = await runWithCommit(2);
      const items = await storedAuditItems(store, run.runId);
      await replaceAuditItems(store, run.runId, [items[0]!, { ...items[1]!, note: 'unhashed' }]);

      expect(await verify(run)).toMatchObject({ ok: false, firstBrokenSeq: 1, reason: 'schema' });
      await expect(store.listAudit(run.runId)).rejects.toBeInstanceOf(ItemCorruptError);
    });
  });
});
