import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { toolResultFor } from '../e2e/support.ts';
import {
  approveRun,
  baseGrant,
  call,
  clientKey,
  gatedFixture,
  gatedGrant,
  type JobsStack,
  pollJob,
  startJobsStack,
} from './support.ts';

describe('Live grant: every tool call is checked against snapshot ∩ the live grant', () => {
  let e2e: JobsStack;
  const owner = () => e2e.stack.apiKey;
  const caller = (clientId: string) => ({ clientId, owner: 'local', principal: `client:${clientId}` });
  const submit = async (clientId: string, prompt: string) => {
    const response = await call(e2e.stack, clientKey(clientId), 'POST', '/v1/jobs', { prompt });
    expect(response.status).toBe(202);
    return response.body.job.jobId as string;
  };

  beforeAll(async () => {
    e2e = await startJobsStack([gatedFixture()], { clientIds: ['narrowed-bot', 'revoked-bot'] });
    for (const clientId of ['narrowed-bot', 'revoked-bot'])
      await call(e2e.stack, owner(), 'POST', '/v1/grants', {
        clientId,
        grant: gatedGrant({ concurrency: 1 }),
      });
  });
  afterAll(() => e2e.close());

  it('refuses an approved call at dispatch when the grant lost the tool while it waited', async () => {
    const jobId = await submit('narrowed-bot', 'Record one line.');
    const waiting = await pollJob(
      e2e.stack,
      caller('narrowed-bot'),
      jobId,
      (job) => job.status === 'awaiting_approval',
    );
    const narrowed = await call(e2e.stack, owner(), 'POST', '/v1/grants/narrowed-bot/narrow', {
      grant: baseGrant({ name: 'job-gated', actions: ['current_time'], concurrency: 1 }),
    });
    expect(narrowed.status).toBe(200);

    await approveRun(e2e, waiting.runId!);
    const ended = await pollJob(e2e.stack, caller('narrowed-bot'), jobId);

    // The approved call never ran: no note, no ledger row; the model was told it was withdrawn.
    expect(ended.status).toBe('denied');
    expect(await e2e.stack.store.getNoteLines(ended.runId!, 'log')).toBeUndefined();
    // Refused rows are written settled and never dispatched (schemas/ledger.ts).
    expect((await e2e.stack.store.listLedger(ended.runId!)).map((row) => [row.tool, row.status])).toEqual([
      ['notes_append', 'refused'],
    ]);
    const result = await toolResultFor(e2e, ended.runId!, 'notes_append');
    expect(result?.isError).toBe(true);
    expect(result?.content).toContain('withdrawn');
  });

  it('stops a running job and keeps queued jobs from starting once the grant is revoked', async () => {
    const first = await submit('revoked-bot', 'Record one line.');
    const waiting = await pollJob(
      e2e.stack,
      caller('revoked-bot'),
      first,
      (job) => job.status === 'awaiting_approval',
    );
    const queued = await submit('revoked-bot', 'Another line.');
    expect((await pollJob(e2e.stack, caller('revoked-bot'), queued, () => true)).status).toBe('queued');

    const revoked = await call(e2e.stack, owner(), 'POST', '/v1/grants/revoked-bot/revoke');
    expect(revoked.body.grant.revoked).toBe(true);
    // The queued job ended without ever getting a run.
    const jobs = e2e.stack.jobs;
    const { getJobRecord } = await import('../../shared/jobs/queue-store.ts');
    const { parseJobId } = await import('../../shared/schemas/job.ts');
    const ref = parseJobId(queued)!;
    const record = await getJobRecord(jobs.store.ctx, ref.grantId, ref.number);
    expect(record).toMatchObject({
      state: 'ended',
      final: { status: 'denied', stopReason: 'policy_denied' },
    });
    expect(record?.runId).toBeUndefined();

    // The approved call of the running job is refused: the run ends denied, the model told why.
    await approveRun(e2e, waiting.runId!);
    const run = await (async () => {
      for (let i = 0; i < 200; i++) {
        const current = await e2e.stack.store.getRun(waiting.runId!);
        if (current && ['done', 'failed', 'denied', 'cancelled'].includes(current.status)) return current;
        await new Promise((resolve) => setTimeout(resolve, 50));
      }
      throw new Error('the run did not end');
    })();
    expect(run).toMatchObject({ status: 'denied', stopReason: 'policy_denied' });
    expect((await e2e.stack.store.listLedger(run.runId)).filter((row) => row.status !== 'refused')).toEqual(
      [],
    );
    expect((await toolResultFor(e2e, run.runId, 'notes_append'))?.content).toContain(
      'the delegation grant was revoked',
    );
  });
});
