/**
 * The local inbox keeps its limit per owner: one owner's burst of notices drops that owner's oldest, never
 * another owner's live links (or run notices).
 */
import { describe, expect, it } from 'vitest';
import { inboxNotifier } from '../../shared/notify/index.ts';
import { notice, ownerNotice } from './fixtures.ts';

describe('inboxNotifier: the limit is per owner', () => {
  it("keeps bob's approval notice when alice sends more than the limit, dropping alice's oldest", async () => {
    // Prepare
    const inbox = inboxNotifier({ max: 2 });
    await inbox.notify(notice({ owner: 'bob', runId: 'run_bob' }));

    // Act
    for (const runId of ['run_a1', 'run_a2', 'run_a3']) await inbox.notify(notice({ owner: 'alice', runId }));

    // Assess
    expect(inbox.notices().map((n) => n.runId)).toEqual(['run_bob', 'run_a2', 'run_a3']);
  });

  it("keeps bob's run notice when alice's run notices pass the limit", async () => {
    const inbox = inboxNotifier({ max: 2 });
    await inbox.notifyOwner(ownerNotice({ owner: 'bob', runId: 'run_bob' }));

    for (const runId of ['run_a1', 'run_a2', 'run_a3'])
      await inbox.notifyOwner(ownerNotice({ owner: 'alice', runId }));

    expect(inbox.ownerNotices().map((n) => n.runId)).toEqual(['run_bob', 'run_a2', 'run_a3']);
  });

  it('keeps at most maxTotal notices of all owners together, dropping the oldest', async () => {
    const inbox = inboxNotifier({ max: 2, maxTotal: 3 });
    for (const owner of ['o1', 'o2', 'o3', 'o4'])
      await inbox.notify(notice({ owner, runId: `run_${owner}` }));

    expect(inbox.notices().map((n) => n.runId)).toEqual(['run_o2', 'run_o3', 'run_o4']);
  });
});
