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
});
