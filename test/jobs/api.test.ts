import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { GrantSpecSchema } from '../../shared/jobs/index.ts';
import {
  baseGrant,
  call,
  clientKey,
  gatedFixture,
  gatedGrant,
  type JobsStack,
  pollJob,
  startJobsStack,
  textFixture,
} from './support.ts';

const CLIENTS = [
  'api-bot',
  'reader',
  'narrow-bot',
  'gated-bot',
  'other-bot',
  'unpriced-bot',
  'tiny-bot',
  'twin-bot',
];

describe('API: /v1/jobs and /v1/grants', () => {
  let e2e: JobsStack;
  const owner = () => e2e.stack.apiKey;
  const as = (clientId: string) => clientKey(clientId);
  const grant = async (clientId: string, spec: object) => {
    const created = await call(e2e.stack, owner(), 'POST', '/v1/grants', { clientId, grant: spec });
    expect(created.status).toBe(201);
    return created.body.grant;
  };

  beforeAll(async () => {
    e2e = await startJobsStack(
      [textFixture('job-helper', 'Done: 42.'), textFixture('job-other', 'Other.'), gatedFixture()],
      { clientIds: CLIENTS, foreignClients: { 'stranger-bot': 'someone-else' } },
    );
    await grant('api-bot', baseGrant());
    await grant('reader', baseGrant({ scopes: ['jobs:read'] }));
    await grant('gated-bot', gatedGrant({ concurrency: 1, maxQueued: 0 }));
    await grant('other-bot', baseGrant({ name: 'job-other' }));
    await grant('unpriced-bot', baseGrant({ models: ['claude-sonnet-5-5', 'claude-unpriced-1'] }));
    await grant('tiny-bot', baseGrant({ concurrency: 1, maxQueued: 0 }));
    await grant('twin-bot', gatedGrant({ concurrency: 1, maxQueued: 5 }));
  });
  afterAll(() => e2e.close());

  it('accepts a job (202, its id and state, never its result) and polls it to done', async () => {
    const submitted = await call(e2e.stack, as('api-bot'), 'POST', '/v1/jobs', { prompt: 'Answer.' });
    expect(submitted.status).toBe(202);
    expect(submitted.body).toMatchObject({
      coalesced: false,
      job: { jobId: expect.stringMatching(/^job_/) },
    });
    expect(submitted.body.job.result).toBeUndefined();
    const caller = { clientId: 'api-bot', owner: 'local', principal: 'client:api-bot' };
    const done = await pollJob(e2e.stack, caller, submitted.body.job.jobId);
    const polled = await call(e2e.stack, as('api-bot'), 'GET', `/v1/jobs/${done.jobId}`);
    expect(polled.status).toBe(200);
    expect(polled.body.job).toMatchObject({
      status: 'done',
      result: { text: 'Done: 42.' },
      stopReason: 'end_turn',
      turns: 1,
      attempts: { made: 1, max: 3, capacityWaits: 0 },
    });
    expect(polled.body.job.costUsd).toBeGreaterThan(0);
    expect(polled.body.job.startedAt).toBeDefined();
    expect(polled.body.job.endedAt).toBeDefined();
  });

  it('answers a dry run with the resolved constraints and queues nothing', async () => {
    const before = await call(e2e.stack, as('api-bot'), 'GET', '/v1/jobs?limit=100');
    const dry = await call(e2e.stack, as('api-bot'), 'POST', '/v1/jobs', {
      prompt: 'Plan only.',
      tools: ['current_time'],
      maxTurns: 2,
      dryRun: true,
    });
    expect(dry.status).toBe(200);
    expect(dry.body).toEqual({
      dryRun: true,
      constraints: {
        tools: [{ name: 'current_time', gate: 'allow' }],
        model: 'claude-sonnet-5-5',
        maxTurns: 2,
        budget: { maxUsdPerJob: 1 },
        timeoutSeconds: 3600,
        maxAttempts: 3,
        grantVersion: 1,
      },
    });
    const after = await call(e2e.stack, as('api-bot'), 'GET', '/v1/jobs?limit=100');
    expect(after.body.jobs).toHaveLength(before.body.jobs.length);
  });

  it.each([
    ['an empty prompt', 'api-bot', { prompt: '   ' }, 400, 'prompt'],
    ['a client without jobs:submit', 'reader', { prompt: 'x' }, 403, 'scope'],
    [
      'a tool outside the grant',
      'api-bot',
      { prompt: 'x', tools: ['current_time', 'http_request'] },
      403,
      'tools[1]',
    ],
    ['a model the grant does not allow', 'api-bot', { prompt: 'x', model: 'claude-opus-5-5' }, 403, 'model'],
    ['a model without a price', 'unpriced-bot', { prompt: 'x', model: 'claude-unpriced-1' }, 400, 'model'],
    ['more turns than the grant', 'api-bot', { prompt: 'x', maxTurns: 6 }, 403, 'maxTurns'],
    ['an unknown field', 'api-bot', { prompt: 'x', owner: 'someone' }, 400, '(root)'],
  ])('refuses %s, naming the field, and queues nothing', async (_name, clientId, body, status, field) => {
    const before = await call(e2e.stack, as(clientId), 'GET', '/v1/jobs?limit=100');
    const refused = await call(e2e.stack, as(clientId), 'POST', '/v1/jobs', body);
    expect(refused.status).toBe(status);
    expect(refused.body.error.fields.map((f: { path: string }) => f.path)).toContain(field);
    if (before.status === 200) {
      const after = await call(e2e.stack, as(clientId), 'GET', '/v1/jobs?limit=100');
      expect(after.body.jobs).toHaveLength(before.body.jobs.length);
    }
  });

  it('refuses a submission when the quota and the queue are full (429 naming queue)', async () => {
    const first = await call(e2e.stack, as('gated-bot'), 'POST', '/v1/jobs', { prompt: 'Record one line.' });
    expect(first.status).toBe(202);
    const caller = { clientId: 'gated-bot', owner: 'local', principal: 'p' };
    await pollJob(e2e.stack, caller, first.body.job.jobId, (job) => job.status === 'awaiting_approval');
    const second = await call(e2e.stack, as('gated-bot'), 'POST', '/v1/jobs', { prompt: 'Another task.' });
    expect(second.status).toBe(429);
    expect(second.body.error).toMatchObject({ code: 'queue_full', fields: [{ path: 'queue' }] });

    // An identical submission is not refused: it is the same job, coalesced, with or without a key.
    const again = await call(e2e.stack, as('gated-bot'), 'POST', '/v1/jobs', { prompt: 'Record one line.' });
    expect(again.status).toBe(200);
    expect(again.body).toMatchObject({ coalesced: true, job: { jobId: first.body.job.jobId } });
    const keyed = await call(
      e2e.stack,
      as('gated-bot'),
      'POST',
      '/v1/jobs',
      { prompt: 'Record one line.', tools: ['current_time', 'notes_append'] },
      { 'Idempotency-Key': 'k-1' },
    );
    expect(keyed.body).toMatchObject({ coalesced: true, job: { jobId: first.body.job.jobId } });

    // Cancelling the waiting job reports the run it stopped, frees the slot, and ends coalescing.
    const cancelled = await call(e2e.stack, as('gated-bot'), 'DELETE', `/v1/jobs/${first.body.job.jobId}`);
    expect(cancelled.status).toBe(200);
    expect(cancelled.body).toMatchObject({
      stopped: 'run',
      job: { status: 'cancelled', stopReason: 'cancelled' },
    });
    const again2 = await call(e2e.stack, as('gated-bot'), 'POST', '/v1/jobs', { prompt: 'Another task.' });
    expect(again2.status).toBe(202);
    const twice = await call(e2e.stack, as('gated-bot'), 'DELETE', `/v1/jobs/${first.body.job.jobId}`);
    expect(twice.body).toMatchObject({ stopped: 'nothing' });
    await call(e2e.stack, as('gated-bot'), 'DELETE', `/v1/jobs/${again2.body.job.jobId}`);
  });

  it('coalesces identical concurrent submissions into one job', async () => {
    const answers = await Promise.all(
      Array.from({ length: 6 }, () =>
        call(e2e.stack, as('twin-bot'), 'POST', '/v1/jobs', { prompt: 'Same task.' }),
      ),
    );
    const ids = new Set(answers.map((answer) => answer.body.job.jobId));
    expect(ids.size).toBe(1);
    expect(answers.filter((answer) => answer.body.coalesced === false)).toHaveLength(1);
    const other = await call(e2e.stack, as('twin-bot'), 'POST', '/v1/jobs', { prompt: 'Another task.' });
    expect(other.body).toMatchObject({ coalesced: false, job: { status: 'queued', queuePosition: 1 } });
    expect(other.body.job.jobId).not.toBe([...ids][0]);
    const cancelled = await call(e2e.stack, as('twin-bot'), 'DELETE', `/v1/jobs/${other.body.job.jobId}`);
    expect(cancelled.body).toMatchObject({ stopped: 'queued', job: { status: 'cancelled' } });
    await call(e2e.stack, as('twin-bot'), 'DELETE', `/v1/jobs/${[...ids][0]}`);
  });

  it('takes a new job once the running one ended, when the grant has no queue', async () => {
    const running = await call(e2e.stack, as('tiny-bot'), 'POST', '/v1/jobs', { prompt: 'first' });
    // tiny-bot has no queue: a second job is refused while the first runs, accepted once it ended.
    const caller = { clientId: 'tiny-bot', owner: 'local', principal: 'p' };
    await pollJob(e2e.stack, caller, running.body.job.jobId);
    const ok = await call(e2e.stack, as('tiny-bot'), 'POST', '/v1/jobs', { prompt: 'second' });
    expect(ok.status).toBe(202);
  });

  it('answers a foreign job id exactly as a missing one (404)', async () => {
    const mine = await call(e2e.stack, as('other-bot'), 'POST', '/v1/jobs', { prompt: 'Mine.' });
    const id = mine.body.job.jobId as string;
    const foreign = await call(e2e.stack, as('api-bot'), 'GET', `/v1/jobs/${id}`);
    const missing = await call(
      e2e.stack,
      as('api-bot'),
      'GET',
      `/v1/jobs/${id.replace(/^job_\d+/, 'job_999')}`,
    );
    const malformed = await call(e2e.stack, as('api-bot'), 'GET', '/v1/jobs/nope');
    const otherOwner = await call(e2e.stack, as('stranger-bot'), 'GET', `/v1/jobs/${id}`);
    expect(foreign).toEqual({
      status: 404,
      body: { error: { code: 'not_found', message: 'job not found' } },
    });
    expect(missing).toEqual(foreign);
    expect(malformed).toEqual(foreign);
    // A client whose owner never granted it has no grant at all.
    expect(otherOwner.status).toBe(403);
    const cancel = await call(e2e.stack, as('api-bot'), 'DELETE', `/v1/jobs/${id}`);
    expect(cancel).toEqual(foreign);
  });

  it('keeps clients off the owner routes and owners off the client routes', async () => {
    expect((await call(e2e.stack, as('api-bot'), 'GET', '/v1/workflows')).status).toBe(403);
    expect((await call(e2e.stack, as('api-bot'), 'GET', '/v1/grants')).status).toBe(403);
    expect((await call(e2e.stack, as('api-bot'), 'GET', '/v1/runs')).status).toBe(403);
    expect((await call(e2e.stack, owner(), 'POST', '/v1/jobs', { prompt: 'x' })).status).toBe(403);
  });

  it('versions and audits grant changes, refusing a "narrowing" that widens (naming the field)', async () => {
    await grant('narrow-bot', baseGrant());
    const widening = await call(e2e.stack, owner(), 'POST', '/v1/grants/narrow-bot/narrow', {
      grant: baseGrant({ maxTurns: 9 }),
    });
    expect(widening.status).toBe(400);
    expect(widening.body.error.fields).toEqual([{ path: 'grant.maxTurns', message: expect.any(String) }]);
    const narrowed = await call(e2e.stack, owner(), 'POST', '/v1/grants/narrow-bot/narrow', {
      grant: baseGrant({ actions: ['current_time'], maxTurns: 3 }),
      expectedVersion: 1,
    });
    expect(narrowed.status).toBe(200);
    expect(narrowed.body.grant).toMatchObject({ version: 2, grant: { actions: ['current_time'] } });
    const stale = await call(e2e.stack, owner(), 'POST', '/v1/grants/narrow-bot/widen', {
      grant: baseGrant(),
      expectedVersion: 1,
    });
    expect(stale.status).toBe(409);
    const widened = await call(e2e.stack, owner(), 'POST', '/v1/grants/narrow-bot/widen', {
      grant: baseGrant(),
    });
    expect(widened.body.grant.version).toBe(3);
    const revoked = await call(e2e.stack, owner(), 'POST', '/v1/grants/narrow-bot/revoke');
    expect(revoked.body.grant).toMatchObject({ version: 4, revoked: true });
    const refused = await call(e2e.stack, as('narrow-bot'), 'POST', '/v1/jobs', { prompt: 'x' });
    expect(refused.status).toBe(403);

    const history = await call(e2e.stack, owner(), 'GET', '/v1/grants/narrow-bot/history');
    expect(
      history.body.versions.map((v: { version: number; revoked: boolean }) => [v.version, v.revoked]),
    ).toEqual([
      [1, false],
      [2, false],
      [3, false],
      [4, true],
    ]);
    // Each change is in the owner's audit chain, with its author.
    const changes = (await e2e.stack.store.listOwnerChangeItems('local')) as {
      type: string;
      author: string;
    }[];
    expect(
      changes
        .filter((c) => c.type.startsWith('grant_'))
        .slice(-4)
        .map((c) => c.type),
    ).toEqual(['grant_created', 'grant_narrowed', 'grant_widened', 'grant_revoked']);
    const audit = await call(e2e.stack, owner(), 'GET', '/v1/audit');
    expect(audit.status).toBe(200);
    expect(JSON.stringify(audit.body)).not.toContain('"ok":false');
  });

  it('refuses a grant naming an unknown action, naming the field', async () => {
    const bad = await call(e2e.stack, owner(), 'POST', '/v1/grants', {
      clientId: 'bad-bot',
      grant: GrantSpecSchema.parse(baseGrant({ actions: ['current_time', 'no_such_tool'] })),
    });
    expect(bad.status).toBe(400);
    expect(bad.body.error.fields[0].path).toBe('grant.actions.1');
  });
});
