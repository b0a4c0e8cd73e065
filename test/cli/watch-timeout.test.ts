/**
 * `wf run start --wait` gives up after its default 30 minutes and says so (it said "after 0 s" when no timeout
 * was given). The API is a deterministic stand-in: a run that never ends; time is vitest's fake clock.
 */
import { afterEach, describe, expect, it, vi } from 'vitest';
import { DEFAULT_WAIT_MS, watchRun } from '../../shared/cli/watch.ts';
import { emptyAuditPage } from './audit-page.ts';

const running = { runId: 'run_abcdef', status: 'running' };
const emptyAudit = emptyAuditPage('run_abcdef');

afterEach(() => vi.useRealTimers());

describe('watchRun', () => {
  it('names the default wait when a run outlasts it', async () => {
    vi.useFakeTimers({ toFake: ['Date', 'setTimeout'] });
    const client = {
      get: async (path: string) => (path.endsWith('/audit') ? emptyAudit : { run: running }),
    } as Parameters<typeof watchRun>[0];
    const watching = watchRun(client, 'run_abcdef', { print: () => {}, intervalMs: 60_000 });
    const outcome = expect(watching).rejects.toThrow('run run_abcdef is still running after 1800 s');
    await vi.advanceTimersByTimeAsync(DEFAULT_WAIT_MS + 120_000);
    await outcome;
  });
});
