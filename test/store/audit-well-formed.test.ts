/**
 * The last line behind `cutText`: an audit input whose text carries a lone UTF-16 surrogate is sealed with U+FFFD
 * in its place. RFC 8785 canonical JSON refuses a lone surrogate, so such an entry failed its commit (and every
 * retry of it) with AuditEntryError, and the run could never move again. On DynamoDB Local.
 */
import { describe, expect, it } from 'vitest';
import { verifyAuditChain } from '../../shared/audit/index.ts';
import { minimalWorkflow, seedRun, seedWorkflow, testStore } from '../support/store.ts';

const store = testStore();

describe('a run commit whose audit text carries a lone surrogate', () => {
  it('seals it with U+FFFD in its place, in the data, its field names and the actor', async () => {
    // Prepare
    const { version } = await seedWorkflow(store, minimalWorkflow());
    const run = await seedRun(store, version, { firstTurn: false });

    // Act
    await store.commit({
      run,
      next: { ...run, status: 'running' },
      audit: [
        {
          type: 'error',
          actor: 'owner:t\ud83d',
          data: { name: 'Error', message: 'half an emoji: \ud83d', details: [{ 'key\ude00': 'x' }] },
        },
      ],
    });

    // Assess
    const audit = await store.listAudit(run.runId);
    expect(audit.at(-1)).toMatchObject({
      type: 'error',
      actor: 'owner:t\ufffd',
      data: { name: 'Error', message: 'half an emoji: \ufffd', details: [{ 'key\ufffd': 'x' }] },
    });
    expect(verifyAuditChain(audit, { owner: run.owner, runId: run.runId })).toMatchObject({ ok: true });
    expect(await store.getRun(run.runId)).toMatchObject({ status: 'running' });
  });
});
