/**
 * Late attempts of a retried RequestApproval. Step Functions retries a callback task whose invocation failed
 * (`Lambda.Unknown`, or an Invoke that timed out client-side) with a fresh task token, while the first invocation
 * may still run (https://docs.aws.amazon.com/step-functions/latest/dg/concepts-error-handling.html); each
 * attempt passes which one it is from the context object (`$$.State.RetryCount`, `$$.Execution.RedriveCount`,
 * `$$.Execution.StartTime`, https://docs.aws.amazon.com/step-functions/latest/dg/input-output-contextobject.html).
 * A late attempt must never send the links again nor replace the live token with its dead one, and a repeat of
 * one attempt changes nothing.
 */
import { describe, expect, it } from 'vitest';
import { createRequestApprovalHandler } from '../../functions/request-approval.ts';
import { requestApproval } from '../../shared/approvals-http/index.ts';
import { waitFence } from '../../shared/graph-run/wait-fence.ts';
import type { ApprovalNotice } from '../../shared/notify/index.ts';
import { inboxNotifier } from '../../shared/notify/index.ts';
import { FixedClock } from '../support/store.ts';
import { BOSS, keyring, PUBLIC_BASE, parkRun, recordingLogger, store } from './support.ts';

const START = '2026-12-03T09:10:35.123Z';
/** The fence of retry `retryCount` of the run's wait (turn 0, not redriven). */
const attempt = (retryCount: number, startTime: string | undefined = START) =>
  waitFence(0, { retryCount, redriveCount: 0, startTime });

type Request = { taskToken: string; fence?: string | undefined; onNotify?: () => Promise<void> };

/** One RequestApproval invocation; records the links it hands the channel and the tokens it answers. */
async function request(clock: FixedClock, runId: string, approvalIds: string[], call: Request) {
  const links: string[] = [];
  const answered: string[] = [];
  const result = await requestApproval(
    {
      store,
      clock,
      keyring,
      publicBaseUrl: PUBLIC_BASE,
      notifier: {
        channel: 'test',
        reaches: () => true,
        notify: async (notice: ApprovalNotice) => {
          links.push(notice.url);
          await call.onNotify?.();
        },
      },
      taskTokens: {
        sendSuccess: async (token) => {
          answered.push(token);
          return 'sent';
        },
        sendFailure: async () => 'sent',
      },
      logger: recordingLogger(),
    },
    { runId, taskToken: call.taskToken, approvalIds, fence: call.fence },
  );
  return { result, links, answered };
}

async function parked(clock: FixedClock) {
  const { run, approval } = await parkRun(clock, [BOSS]);
  return { runId: run.runId, approvalId: approval.approvalId, ids: [approval.approvalId] };
}

describe('RequestApproval fenced on the attempt of its wait', () => {
  it('a late attempt read after the retry stored its token: superseded, no links, token unchanged', async () => {
    // Prepare: the retry (RetryCount 1) stored its token
    const clock = new FixedClock();
    const { runId, approvalId, ids } = await parked(clock);
    const retry = await request(clock, runId, ids, { taskToken: 'token-retry', fence: attempt(1) });
    expect(retry.result.status).toBe('notified');

    // Act: the first invocation (RetryCount 0), held up before its first read, runs now
    const late = await request(clock, runId, ids, { taskToken: 'token-late', fence: attempt(0) });

    // Assess
    expect(late.result.status).toBe('superseded');
    expect(late.links).toEqual([]);
    expect(late.answered).toEqual([]);
    const stored = await store.getApproval(approvalId);
    expect(stored?.taskToken).toBe('token-retry');
    expect(stored?.fence).toBe(attempt(1));
    expect(stored?.status).toBe('pending');
  });

  it('a late attempt of a dead execution loses to the later execution, whatever its counts', async () => {
    // Prepare: a later execution (RetryCount back at 0) stored its token
    const clock = new FixedClock();
    const { runId, approvalId, ids } = await parked(clock);
    const later = '2026-12-03T10:00:00.000Z';
    await request(clock, runId, ids, { taskToken: 'token-new-exec', fence: attempt(0, later) });

    // Act
    const late = await request(clock, runId, ids, { taskToken: 'token-old-exec', fence: attempt(3) });

    // Assess
    expect(late.result.status).toBe('superseded');
    expect(late.links).toEqual([]);
    expect((await store.getApproval(approvalId))?.taskToken).toBe('token-new-exec');
  });

  it('a repeat of one attempt sends nothing again and changes nothing', async () => {
    // Prepare
    const clock = new FixedClock();
    const { runId, approvalId, ids } = await parked(clock);
    await request(clock, runId, ids, { taskToken: 'token-1', fence: attempt(0) });
    const before = await store.getApproval(approvalId);
    const audit = (await store.listAudit(runId)).length;

    // Act
    const again = await request(clock, runId, ids, { taskToken: 'token-1', fence: attempt(0) });

    // Assess
    expect(again.result.status).toBe('already_requested');
    expect(again.links).toEqual([]);
    expect(again.answered).toEqual([]);
    expect(await store.getApproval(approvalId)).toEqual(before);
    expect((await store.listAudit(runId)).length).toBe(audit);
  });

  it('the retry stores its token over a late attempt that committed first while its links went out', async () => {
    // Prepare
    const clock = new FixedClock();
    const { runId, approvalId, ids } = await parked(clock);
    let late: Awaited<ReturnType<typeof request>> | undefined;

    // Act: both read the approval without a token; the late one commits while the retry's links go out
    const retry = await request(clock, runId, ids, {
      taskToken: 'token-retry',
      fence: attempt(1),
      onNotify: async () => {
        late = await request(clock, runId, ids, { taskToken: 'token-late', fence: attempt(0) });
      },
    });

    // Assess: the live (retry's) token is stored, never answered at once
    expect(late?.result.status).toBe('notified');
    expect(retry.result.status).toBe('notified');
    expect(retry.answered).toEqual([]);
    const stored = await store.getApproval(approvalId);
    expect(stored?.taskToken).toBe('token-retry');
    expect(stored?.fence).toBe(attempt(1));
  });

  it('a late attempt whose links went out before the retry committed stores nothing and answers nothing', async () => {
    // Prepare
    const clock = new FixedClock();
    const { runId, approvalId, ids } = await parked(clock);
    let retry: Awaited<ReturnType<typeof request>> | undefined;

    // Act: the retry runs and commits while the late attempt's links go out
    const late = await request(clock, runId, ids, {
      taskToken: 'token-late',
      fence: attempt(0),
      onNotify: async () => {
        retry = await request(clock, runId, ids, { taskToken: 'token-retry', fence: attempt(1) });
      },
    });

    // Assess
    expect(retry?.result.status).toBe('notified');
    expect(late.result.status).toBe('superseded');
    expect(late.answered).toEqual([]);
    expect((await store.getApproval(approvalId))?.taskToken).toBe('token-retry');
  });

  it('replaces an unfenced token (an earlier definition) and is never replaced by an unfenced late call', async () => {
    // Prepare: an execution of the earlier definition stored its token without a fence
    const clock = new FixedClock();
    const { runId, approvalId, ids } = await parked(clock);
    await request(clock, runId, ids, { taskToken: 'token-unfenced' });

    // Act
    const fenced = await request(clock, runId, ids, { taskToken: 'token-fenced', fence: attempt(0) });
    const unfenced = await request(clock, runId, ids, { taskToken: 'token-unfenced-late' });

    // Assess
    expect(fenced.result.status).toBe('notified');
    expect(unfenced.result.status).toBe('superseded');
    expect(unfenced.links).toEqual([]);
    expect((await store.getApproval(approvalId))?.taskToken).toBe('token-fenced');
  });

  it('the handler fences on the attempt the state machine passes (turn, retry, redrive, execution start)', async () => {
    // Prepare
    const clock = new FixedClock();
    const { runId, approvalId } = await parked(clock);
    const inbox = inboxNotifier();
    const handler = createRequestApprovalHandler(async () => ({
      store,
      clock,
      keyring,
      publicBaseUrl: PUBLIC_BASE,
      notifier: inbox,
      taskTokens: { sendSuccess: async () => 'sent', sendFailure: async () => 'sent' },
      logger: recordingLogger(),
    }));
    const event = (taskToken: string, retryCount: number) => ({
      runId,
      turn: 0,
      taskToken,
      wait: { retryCount, redriveCount: 0, startTime: START },
    });

    // Act
    const retry = await handler(event('token-retry', 1));
    const sent = inbox.notices().length;
    const late = await handler(event('token-late', 0));

    // Assess
    expect(retry.status).toBe('notified');
    expect(late.status).toBe('superseded');
    expect(inbox.notices().length).toBe(sent);
    const stored = await store.getApproval(approvalId);
    expect(stored?.taskToken).toBe('token-retry');
    expect(stored?.fence).toBe(attempt(1));
  });
});
