/**
 * The price of the live-policy ConditionCheck on the workflow head (shared/store/commit.ts `liveHeadCheck`) that
 * external runs' Start, Observe and Finish commits carry (shared/external/run/live-policy.ts). AWS: every item of
 * a TransactWriteItems is read or written twice, prepare and commit, a ConditionCheck included, and is billed as a
 * transactional write of its size (https://docs.aws.amazon.com/amazondynamodb/latest/developerguide/transaction-apis.html#transaction-capacity-handling):
 * 2 WRU per KB of the head, rounded up. A head is at most a few hundred bytes (an owner of at most 128 characters,
 * a name of at most 63), so every such commit costs 2 WRU more: the figure docs/deploy.md quotes.
 */
import { describe, expect, it } from 'vitest';
import { billedItemBytes } from '../../shared/cost/item-bytes.ts';
import { writeRequest, writeTargets } from '../../shared/cost/metered-command.ts';
import { writeUnits } from '../../shared/cost/request-units.ts';
import type { WorkflowHead } from '../../shared/schemas/workflow-record.ts';
import { keys } from '../../shared/store/keys.ts';

/** The largest head the schemas allow, as the store keeps it (workflows.ts: its keys and fields). */
const head: WorkflowHead = {
  schemaVersion: 1,
  owner: 'o'.repeat(128),
  workflowId: `wf_${'f'.repeat(32)}`,
  name: `n${'-'.repeat(62)}`,
  enabled: true,
  deleted: false,
  latestVersion: 999_999,
  draftVersion: 1_000_000,
  createdAt: '2026-12-02T00:00:00.000Z',
  updatedAt: '2026-12-02T00:00:00.000Z',
};
const stored = { ...keys.workflowHead(head.owner, head.workflowId), ...head };

describe('the live-head ConditionCheck of an external run commit', () => {
  it('costs 2 WRU: a transactional write of the head, under 1 KB even at its largest', () => {
    const input = {
      TransactItems: [{ ConditionCheck: { Key: keys.workflowHead(head.owner, head.workflowId) } }],
    };
    const targets = writeTargets('TransactWriteCommand', input, ['pk', 'sk']);
    const request = writeRequest('TransactWriteCommand', targets, [stored], [stored]);
    expect(billedItemBytes(stored)).toBeLessThan(1024);
    expect(writeUnits(request, [])).toBe(2);
  });
});
