/**
 * undici is loaded on the first outbound request (egress/undici.ts). Its loading must not count against
 * that request's deadline: a cold Lambda's first fetch would otherwise time out on a slow module load.
 */
import { setTimeout as sleep } from 'node:timers/promises';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { guardedFetch } from '../../shared/egress/index.ts';
import { startServer, type TestServer, useDialGuard } from './helpers.ts';

// A module load slower than the whole deadline below.
vi.mock('undici', async (importOriginal) => {
  await sleep(400);
  return importOriginal();
});

useDialGuard();
let server: TestServer;

beforeAll(async () => {
  server = await startServer((_req, res) => res.end('hello'));
});
afterAll(async () => {
  await server.close();
});

describe('guardedFetch, first request of a process', () => {
  it('loads the HTTP client before its deadline starts', async () => {
    // Act
    const response = await guardedFetch(`${server.origin}/x`, {
      policy: { allowLoopbackPorts: [server.port], totalTimeoutMs: 250, headersTimeoutMs: 200 },
    });

    // Assess
    expect(await response.text()).toBe('hello');
  });
});
