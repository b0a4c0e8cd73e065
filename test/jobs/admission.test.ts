import { DynamoDBDocumentClient, TransactWriteCommand } from '@aws-sdk/lib-dynamodb';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { JobView } from '../../shared/jobs/index.ts';
import type { Run } from '../../shared/schemas/run.ts';
import {
  approveRun,
  call,
  clientKey,
  gatedFixture,
  gatedGrant,
  type JobsStack,
  startJobsStack,
} from './support.ts';

const SUBMISSIONS = 50;
const QUOTA = 3;

/** The most runs whose [createdAt, endedAt) intervals overlap at one instant. */
function maxOverlap(runs: Run[]): number {
  const events = runs.flatMap((run) => [
    { at: Date.parse(run.createdAt), delta: 1 },
    { at: Date.parse(run.endedAt!), delta: -1 },
  ]);
  // An end and a start at the same millisecond: the end first (the slot was given back before it was taken).
  events.sort((a, b) => a.at - b.at || a.delta - b.delta);
  let current = 0;
  let most = 0;
  for (const event of events) {
    current += event.delta;
    most = Math.max(most, current);
  }
  return most;
}

/** The job number a transaction promotes from the queue (claimSlot: running +1 and its `Q#<n>` deleted), if any. */
function claimedNumber(command: unknown, tableName: string): number | undefined {
  if (!(command instanceof TransactWriteCommand)) return undefined;
  const [slots, queued] = command.input.TransactItems ?? [];
  const sk = queued?.Delete?.Key?.sk;
  if (slots?.Update?.TableName !== tableName || slots.Update.ExpressionAttributeValues?.[':running'] !== 1)
    return undefined;
  return typeof sk === 'string' && sk.startsWith('Q#') ? Number(sk.slice(2)) : undefined;
}

/**
 * Records every promotion transaction of `tableName` in the order it is sent, and whether it committed. A
 * promoter claims job n+1 only once it has read job n as no longer queued (claimed and committed), so the
 * committed claims, in the order they were sent, are the promotion order. (The runs' `createdAt` is not: it is
 * read from the clock when a claim's reply arrives, and on a loaded machine replies come back in any order.)
 */
function recordClaims(tableName: string): { claims: { number: number; committed: boolean }[]; stop(): void } {
  const prototype = DynamoDBDocumentClient.prototype;
  const original = prototype.send;
  const claims: { number: number; committed: boolean }[] = [];
  prototype.send = function send(this: DynamoDBDocumentClient, command: unknown, ...rest: unknown[]) {
    const number = claimedNumber(command, tableName);
    const entry = number === undefined ? undefined : { number, committed: false };
    if (entry) claims.push(entry);
    const sent = (original as (...args: unknown[]) => Promise<unknown>).call(this, command, ...rest);
    return entry
      ? sent.then((output) => {
          entry.committed = true;
          return output;
        })
      : sent;
  } as typeof original;
  return {
    claims,
    stop: () => {
      prototype.send = original;
    },
  };
}

describe('Admission: 50 concurrent submissions against a quota of 3', () => {
  let e2e: JobsStack;
  let recorder: ReturnType<typeof recordClaims>;
  const list = async (status?: string): Promise<JobView[]> => {
    const jobs: JobView[] = [];
    let token: string | undefined;
    do {
      const query = new URLSearchParams({
        limit: '100',
        ...(status ? { status } : {}),
        ...(token ? { nextToken: token } : {}),
      });
      const page = await call(e2e.stack, clientKey('busy-bot'), 'GET', `/v1/jobs?${query}`);
      jobs.push(...page.body.jobs);
      token = page.body.nextToken;
    } while (token);
    return jobs;
  };
  const numberOf = (jobId: string) => Number(/^job_(\d+)g/.exec(jobId)![1]);

  beforeAll(async () => {
    e2e = await startJobsStack([gatedFixture()], { clientIds: ['busy-bot'] });
    recorder = recordClaims(e2e.stack.store.ctx.table);
    const created = await call(e2e.stack, e2e.stack.apiKey, 'POST', '/v1/grants', {
      clientId: 'busy-bot',
      grant: gatedGrant({ concurrency: QUOTA, maxQueued: 100 }),
    });
    expect(created.status).toBe(201);
  });
  afterAll(async () => {
    recorder?.stop();
    await e2e?.close();
  });

  it('never runs more than 3 at once, shows strictly increasing queue positions, promotes in order and finishes all 50', async () => {
    const responses = await Promise.all(
      Array.from({ length: SUBMISSIONS }, (_, index) =>
        call(e2e.stack, clientKey('busy-bot'), 'POST', '/v1/jobs', { prompt: `Record line ${index}.` }),
      ),
    );
    expect(responses.map((response) => response.status)).toEqual(Array(SUBMISSIONS).fill(202));
    expect(new Set(responses.map((response) => response.body.job.jobId)).size).toBe(SUBMISSIONS);

    // Every running job waits for its approval, so the queue stands still: read it.
    let waiting: JobView[] = [];
    for (let i = 0; i < 400 && waiting.length < QUOTA; i++) {
      waiting = await list('awaiting_approval');
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
    expect(waiting).toHaveLength(QUOTA);
    const queued = (await list('queued')).sort((a, b) => numberOf(a.jobId) - numberOf(b.jobId));
    expect(queued).toHaveLength(SUBMISSIONS - QUOTA);
    expect(queued.map((job) => job.queuePosition)).toEqual(queued.map((_, index) => index + 1));

    // Approve whatever waits until every job ended; each approval lets one job finish and the next start.
    let ended: JobView[] = [];
    const approved = new Set<string>();
    for (let round = 0; round < 2000 && ended.length < SUBMISSIONS; round++) {
      const all = await list();
      ended = all.filter((job) => ['done', 'failed', 'denied', 'cancelled'].includes(job.status));
      const active = all.filter((job) => job.status === 'running' || job.status === 'awaiting_approval');
      expect(active.length).toBeLessThanOrEqual(QUOTA);
      // Each run asks once: one approved stays "awaiting" until its next turn starts.
      for (const job of all.filter((candidate) => candidate.status === 'awaiting_approval')) {
        if (approved.has(job.runId!)) continue;
        approved.add(job.runId!);
        await approveRun(e2e, job.runId!);
      }
      if (active.length === 0) await new Promise((resolve) => setTimeout(resolve, 20));
    }
    expect(ended.map((job) => job.status)).toEqual(Array(SUBMISSIONS).fill('done'));

    // From the run records: at most 3 at once, and 3 did run at once.
    const runs = await Promise.all(ended.map(async (job) => (await e2e.stack.store.getRun(job.runId!))!));
    expect(runs.every((run) => run.endedAt !== undefined && run.trigger.type === 'job')).toBe(true);
    expect(maxOverlap(runs)).toBe(QUOTA);

    // The queue as read above was promoted in its order, each job once.
    const promoted = recorder.claims.filter((claim) => claim.committed).map((claim) => claim.number);
    const queueOrder = queued.map((job) => numberOf(job.jobId));
    expect(promoted.filter((number) => queueOrder.includes(number))).toEqual(queueOrder);
  }, 240_000);
});
