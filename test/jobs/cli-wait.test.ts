/**
 * `wf job submit --wait` when the job ended before the submit answered: the answer never carries a result
 * (docs/jobs.md), so the CLI must read the job once more for it. A loopback API answers the submit with a job
 * already `done`, deterministically (on a real stack this happens only when the job wins the race).
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { wf } from '../cli/support.ts';

const job = {
  jobId: 'job_0123456789abcdef0123456789abcdef',
  status: 'done',
  createdAt: '2026-12-01T00:00:00.000Z',
  endedAt: '2026-12-01T00:00:01.000Z',
  turns: 1,
  costUsd: 0.001,
  attempts: { made: 1, max: 3, capacityWaits: 0 },
};

describe('wf job submit --wait', () => {
  let server: Server;
  let url: string;
  const requests: string[] = [];
  beforeAll(async () => {
    server = createServer((req, res) => {
      requests.push(`${req.method} ${req.url}`);
      res.setHeader('content-type', 'application/json');
      if (req.method === 'POST' && req.url === '/v1/jobs') {
        res.end(JSON.stringify({ job, coalesced: false }));
      } else if (req.method === 'GET' && req.url === `/v1/jobs/${job.jobId}`) {
        res.end(JSON.stringify({ job: { ...job, result: { text: 'Read back.' } } }));
      } else {
        res.statusCode = 404;
        res.end(JSON.stringify({ error: { code: 'not_found', message: 'no such route' } }));
      }
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));

  it('reads the result of a job that ended before the submit answered', async () => {
    const done = await wf([
      'job',
      'submit',
      '--prompt',
      'Hi',
      '--wait',
      '--json',
      '--url',
      url,
      '--api-key',
      'k',
    ]);
    expect(done.code).toBe(0);
    expect(JSON.parse(done.stdout).job).toMatchObject({ status: 'done', result: { text: 'Read back.' } });
    expect(requests).toEqual(['POST /v1/jobs', `GET /v1/jobs/${job.jobId}`]);
  });
});
