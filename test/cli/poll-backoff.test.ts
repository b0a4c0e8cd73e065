/**
 * The CLI's followers poll fast while what they follow changes and back off while it does not: a run waiting
 * hours for an approval is not polled every 400 ms against a deployment. The schedule itself, then
 * `wf run start --wait`'s waits for a run that moves, stalls awaiting approval, and ends (a deterministic
 * stand-in API; the waits are recorded, not slept).
 */
import { describe, expect, it } from 'vitest';
import { fixedPoll, pollBackoff } from '../../shared/cli/poll-backoff.ts';
import { watchRun } from '../../shared/cli/watch.ts';
import { emptyAuditPage } from './audit-page.ts';

describe('pollBackoff', () => {
  it('doubles while nothing changes, up to the cap, and starts over at a change', () => {
    const backoff = pollBackoff({ minMs: 400, maxMs: 5_000 });
    const waits = [true, false, false, false, false, false, true, false].map((changed) =>
      backoff.next(changed),
    );
    expect(waits).toEqual([400, 800, 1_600, 3_200, 5_000, 5_000, 400, 800]);
  });

  it('a fixed interval never grows', () => {
    const fixed = fixedPoll(250);
    expect([false, false, true, false].map((changed) => fixed.next(changed))).toEqual([250, 250, 250, 250]);
  });

  it('refuses a cap below the first wait', () => {
    expect(() => pollBackoff({ minMs: 1_000, maxMs: 10 })).toThrow('need 0 ≤ minMs ≤ maxMs');
  });
});

describe('wf run start --wait', () => {
  const emptyAudit = emptyAuditPage('run_abcdef');

  it('backs off while the run waits for approval and polls fast again when it moves', async () => {
    const statuses = [
      'running',
      'running',
      'running',
      'running',
      'running',
      'awaiting_approval',
      'awaiting_approval',
      'done',
    ];
    let polls = 0;
    const client = {
      get: async (path: string) => {
        if (path.includes('/audit')) return emptyAudit;
        const status = statuses[Math.min(polls++, statuses.length - 1)];
        return { run: { runId: 'run_abcdef', status, delivery: { at: 'x' } } };
      },
    } as unknown as Parameters<typeof watchRun>[0];
    const waits: number[] = [];
    const approvals: string[] = [];
    const run = await watchRun(client, 'run_abcdef', {
      print: () => {},
      sleep: async (ms) => {
        waits.push(ms);
      },
      onAwaitingApproval: (waiting) => {
        approvals.push(waiting.status);
      },
    });
    expect(run.status).toBe('done');
    expect(approvals).toEqual(['awaiting_approval']);
    // running ×5 (400 → 5,000 ms), awaiting_approval ×2 (400, 800), done: no wait after it.
    expect(waits).toEqual([400, 800, 1_600, 3_200, 5_000, 400, 800]);
  });
});
