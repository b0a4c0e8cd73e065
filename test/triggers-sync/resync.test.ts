/**
 * `syncTriggers` (shared/api/workflow-access.ts) syncs the head as it is read at sync time, and when the sync
 * is superseded (the head moved on while it ran: its AWS calls may have landed after the newer head's own
 * sync) it reads the head again and syncs that, a bounded number of times. No table: a store double.
 */
import { describe, expect, it } from 'vitest';
import { SYNC_ROUNDS, syncTriggers } from '../../shared/api/workflow-access.ts';
import type { WorkflowHead, WorkflowVersion } from '../../shared/schemas/workflow-record.ts';
import {
  TriggerSyncError,
  type TriggerSyncRequest,
  TriggerSyncSupersededError,
} from '../../shared/triggers-sync/index.ts';

const schedule = { type: 'schedule', expression: 'rate(5 minutes)', timezone: 'UTC' } as const;
const head = (rev: number, enabled: boolean): WorkflowHead => ({
  schemaVersion: 1,
  owner: 'owner-a',
  workflowId: 'wf_abcdef1',
  name: 'flow',
  enabled,
  deleted: false,
  latestVersion: 1,
  rev,
  createdAt: '2026-12-02T00:00:00.000Z',
  updatedAt: '2026-12-02T00:00:00.000Z',
});
const version = { definition: { trigger: schedule } } as unknown as WorkflowVersion;

/** A store whose head is each of `heads` in turn (one per read; the last one stays). */
function movingStore(heads: WorkflowHead[]) {
  let reads = 0;
  return {
    getWorkflowHead: async () => heads[Math.min(reads++, heads.length - 1)],
    getWorkflowVersion: async () => version,
  };
}

describe('syncTriggers', () => {
  it('redoes a superseded sync from the head read again, with its revision', async () => {
    const requests: TriggerSyncRequest[] = [];
    const triggerSync = {
      sync: async (request: TriggerSyncRequest) => {
        requests.push(request);
        if (requests.length === 1) throw new TriggerSyncSupersededError(request.workflowId);
      },
    };

    await syncTriggers(
      { store: movingStore([head(2, false), head(3, true)]), triggerSync },
      'owner-a',
      'wf_abcdef1',
    );

    expect(requests.map((r) => [r.rev, r.enabled])).toEqual([
      [2, false],
      [3, true],
    ]);
  });

  it(`gives up after ${SYNC_ROUNDS} superseded rounds with a TriggerSyncError (the API's 502)`, async () => {
    let calls = 0;
    const triggerSync = {
      sync: async (request: TriggerSyncRequest) => {
        calls += 1;
        throw new TriggerSyncSupersededError(request.workflowId);
      },
    };

    const sync = syncTriggers({ store: movingStore([head(1, true)]), triggerSync }, 'owner-a', 'wf_abcdef1');

    await expect(sync).rejects.toBeInstanceOf(TriggerSyncError);
    expect(calls).toBe(SYNC_ROUNDS);
  });

  it('a head stored without rev syncs as revision 0', async () => {
    const requests: TriggerSyncRequest[] = [];
    const { rev: _none, ...legacy } = head(1, true);
    const triggerSync = { sync: async (request: TriggerSyncRequest) => void requests.push(request) };

    await syncTriggers({ store: movingStore([legacy]), triggerSync }, 'owner-a', 'wf_abcdef1');

    expect(requests[0]?.rev).toBe(0);
  });
});
