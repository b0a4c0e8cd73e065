import { describe, expect, it } from 'vitest';
import { verifyOwnerChain } from '../../shared/audit/index.ts';
import { RunHandle } from '../../shared/core/engine.ts';
import { FixedClock, minimalWorkflow, seedRun, seedWorkflow, testStore } from '../support/store.ts';

const store = testStore();
const at = new Date(new FixedClock().nowMs()).toISOString();

describe('Owner anchor chain', () => {
  it('anchors concurrently finishing runs of one owner into one verifiable chain, each exactly once', async () => {
    // Prepare: five runs of one owner.
    const { version } = await seedWorkflow(store, minimalWorkflow());
    const runs = await Promise.all(Array.from({ length: 5 }, () => seedRun(store, version)));

    // Act: anchor all at once, and each a second time (a retried Deliver or MarkFailed).
    const anchors = await Promise.all(runs.map((run) => store.anchorRunHead(run, at)));
    const again = await Promise.all(runs.map((run) => store.anchorRunHead(run, at)));

    // Assess
    expect(again).toEqual(anchors);
    expect(anchors.map((anchor) => anchor.seq).sort()).toEqual([0, 1, 2, 3, 4]);
    const items = await store.listOwnerAnchorItems(version.owner);
    expect(items).toHaveLength(5);
    expect(verifyOwnerChain(items, { owner: version.owner })).toMatchObject({ ok: true });
    for (const run of runs)
      expect((await store.getRunAnchor(run.owner, run.runId))?.runHead).toBe(run.audit.head);
  });

  it('anchors 40 runs of one owner finishing at the same moment without failing one (load: bench/load.bench.ts)', async () => {
    // Prepare
    const { version } = await seedWorkflow(store, minimalWorkflow());
    const runs = await Promise.all(Array.from({ length: 40 }, () => seedRun(store, version)));

    // Act
    const results = await Promise.allSettled(runs.map((run) => store.anchorRunHead(run, at)));

    // Assess
    expect(results.filter((result) => result.status === 'rejected')).toEqual([]);
    const items = await store.listOwnerAnchorItems(version.owner);
    expect(verifyOwnerChain(items, { owner: version.owner })).toMatchObject({ ok: true, count: 40 });
  });

  it('anchors a run again when its chain grew after it was anchored (a reopened graph run), once per head', async () => {
    // Prepare: a run anchored when it first ended, then reopened: its chain grows.
    const { version } = await seedWorkflow(store, minimalWorkflow());
    const run = await seedRun(store, version);
    const first = await store.anchorRunHead(run, at);
    const grown = await new RunHandle(run, { store, clock: new FixedClock() }).commit({
      audit: [{ type: 'graph_operation', actor: 'owner:test', data: { operation: 'retry_step' } }],
    });

    // Act: anchored at the later head, then again (a retried Deliver), then with the stale run (a late retry).
    const second = await store.anchorRunHead(grown, at);
    const again = await store.anchorRunHead(grown, at);
    const stale = await store.anchorRunHead(run, at);

    // Assess: one more anchor, at the later head; the run's anchor is the later one; the chain verifies.
    expect(second).toMatchObject({ seq: first.seq + 1, runId: run.runId, runHead: grown.audit.head });
    expect(second.runHeadSeq).toBeGreaterThan(first.runHeadSeq);
    expect(again).toEqual(second);
    expect(stale).toEqual(second);
    expect((await store.getRunAnchor(run.owner, run.runId))?.runHead).toBe(grown.audit.head);
    const items = await store.listOwnerAnchorItems(version.owner);
    expect(items).toHaveLength(2);
    expect(verifyOwnerChain(items, { owner: version.owner })).toMatchObject({ ok: true, count: 2 });
  });
});
