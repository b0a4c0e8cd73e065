/**
 * MarkFailed records the error that ended a run in the run's audit chain (cut to 1,000 characters) and tells the
 * owner (cut to 500). The error is outside text: a Lambda's `errorMessage`, which can quote a model's or a
 * page's text. Cut between the two halves of an emoji, it left a lone surrogate, which RFC 8785 cannot
 * canonicalize, so the audit entry could not be sealed, MarkFailed failed on every retry, and the run stayed
 * `running`. A lone surrogate already in the message (JSON carries one as an escape) did the same.
 */
import { describe, expect, it } from 'vitest';
import { createMarkFailedHandler } from '../../functions/mark-failed.ts';
import { verifyAuditChain } from '../../shared/audit/index.ts';
import { inboxNotifier } from '../../shared/notify/index.ts';
import { FixedClock, minimalWorkflow, seedRun, seedWorkflow, testStore } from '../support/store.ts';

const store = testStore();
const EMOJI = '\u{1F600}';

async function markFailed(error: { Error: string; Cause: string }) {
  const clock = new FixedClock();
  const { version } = await seedWorkflow(store, minimalWorkflow(), { clock });
  const run = await seedRun(store, version, { clock });
  const inbox = inboxNotifier();
  const handler = createMarkFailedHandler(() => ({
    store,
    clock,
    owners: { notifier: inbox, apiBaseUrl: 'http://127.0.0.1:8787' },
  }));
  await handler({ runId: run.runId, error });
  const audit = await store.listAudit(run.runId);
  return {
    run: await store.getRun(run.runId),
    audit,
    chain: verifyAuditChain(audit, { owner: run.owner, runId: run.runId }),
    errorEntry: audit.find((entry) => entry.type === 'error'),
    notices: inbox.ownerNotices(),
  };
}

describe('MarkFailed with outside text in the error', () => {
  it('ends the run and seals its audit chain when an emoji straddles the audit and notice cuts', async () => {
    // Prepare: after 'x' every emoji starts at an odd index, in the message (the audit cut at 1,000) and in
    // `ModelError: <message>` (the notice's cut at 500): both cuts fall between the halves of an emoji.
    const message = `x${EMOJI.repeat(1_000)}`;

    // Act
    const { run, chain, errorEntry, notices } = await markFailed({
      Error: 'ModelError',
      Cause: JSON.stringify({ errorMessage: message }),
    });

    // Assess
    expect(run).toMatchObject({ status: 'failed', stopReason: 'error' });
    expect(chain).toMatchObject({ ok: true });
    expect(errorEntry?.data).toEqual({ name: 'ModelError', message: `x${EMOJI.repeat(499)}` });
    const reason = notices[0]?.reason ?? '';
    expect(reason.isWellFormed()).toBe(true);
    expect(reason).toBe(`ModelError: x${EMOJI.repeat(243)}`);
  });

  it('replaces a lone surrogate already in the message with U+FFFD, in the run, its audit and the notice', async () => {
    const { run, chain, errorEntry, notices } = await markFailed({
      Error: 'ModelError',
      Cause: JSON.stringify({ errorMessage: 'the page said \ud83d and stopped' }),
    });

    expect(run).toMatchObject({
      status: 'failed',
      error: { name: 'ModelError', message: 'the page said \ufffd and stopped' },
    });
    expect(chain).toMatchObject({ ok: true });
    expect(errorEntry?.data).toEqual({ name: 'ModelError', message: 'the page said \ufffd and stopped' });
    expect(notices[0]?.reason).toBe('ModelError: the page said \ufffd and stopped');
  });
});
