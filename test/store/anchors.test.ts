import { describe, expect, it } from 'vitest';
import { verifyOwnerChain } from '../../shared/audit/index.ts';
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
});
