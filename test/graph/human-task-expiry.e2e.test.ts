/**
 * A human task nobody answers, on the local stack with the real human-task service (task records, signed links,
 * the form pages) and a real Step Functions timer: the refund example's manager review waits with its link
 * sent; the stack stops; the clock moves to 2 s before the window closes; the restarted stack re-drives the
 * wait with what is left (2 s). The wait fails with States.Timeout → RecordStepError (graph-advance) records
 * the task `expired` (audited) and the step's `onTimeout` (declined). The clock never passes the window: the
 * page and the api refuse the task because its record says expired, not because the clock does.
 */
import { describe, expect, it } from 'vitest';
import { issueSubjectNonce } from '../../shared/approvals/index.ts';
import type { HumanTask } from '../../shared/schemas/human-task.ts';
import { applyWorkflowText, eventually, getAudit, runEnded } from '../e2e/support.ts';
import { graphStackForSuite } from '../support/graph-stack.ts';
import { FixedClock } from '../support/store.ts';
import { refundGraph, startRefund, stepsOf } from './support.ts';

const clock = new FixedClock(new Date().toISOString());
const MANAGER = 'manager@example.com';

describe('a human task whose wait times out (the real service)', () => {
  const graph = graphStackForSuite({ clock, humanTasks: 'service' });

  it('expires the task, takes onTimeout, and refuses a late submission', async () => {
    // Prepare: the manager review waits, its link in the inbox.
    const { payments } = graph;
    let e2e = graph.e2e;
    const workflowId = await applyWorkflowText(
      e2e,
      'refund-unanswered',
      refundGraph('refund-unanswered', payments.url),
    );
    const runId = await startRefund(e2e, workflowId, 'I was charged twice for order 7. Customer c_99.');
    const first = e2e;
    const task = await eventually('the open manager review', async () =>
      (await first.stack.store.listRunHumanTasks(runId)).find((t) => t.status === 'open'),
    );
    const sent = await eventually('the manager link in the inbox', async () =>
      first.stack.inbox.notices().find((n) => n.runId === runId && n.approver === MANAGER),
    );
    const linkPath = ((url) => `${url.pathname}${url.search}`)(new URL(sent.url));
    // Act: 2 s of the 86,400 s window are left when the stack comes back; the wait's timer fires.
    e2e = await graph.restart(() => clock.advance((86_400 - 2) * 1000));
    expect(e2e.stack.resumed).toContain(runId);
    const run = await runEnded(e2e, runId, 30_000);

    // Assess: the onTimeout path, and the task recorded expired (once, audited).
    expect(run.status).toBe('done');
    const steps = await stepsOf(e2e, runId);
    expect(steps.manager_review).toMatchObject({
      status: 'succeeded',
      timedOut: true,
      output: { approve: false },
    });
    expect(steps.declined?.status).toBe('succeeded');
    expect(payments.refunds).toEqual([]);
    const expired = await e2e.stack.store.getHumanTask(task.taskId);
    expect(expired).toMatchObject({ status: 'expired', closedReason: 'timeout' });
    expect(expired?.taskToken).toBeUndefined();
    const audit = (await getAudit(e2e, runId)).entries.map((entry) => entry.type);
    expect(audit.filter((type) => type === 'human_task_expired')).toHaveLength(1);
    expect(Date.parse(task.expiresAt)).toBeGreaterThan(clock.nowMs());

    // The owner's list shows it expired, never open.
    const list = async (status: string) =>
      (await e2e.client.get<{ items: HumanTask[] }>(`/v1/human-tasks?status=${status}`)).items.map(
        (t) => t.taskId,
      );
    expect(await list('open')).not.toContain(task.taskId);
    expect(await list('expired')).toContain(task.taskId);

    // The link is still inside its window, but the page refuses the task, and so does a late submission.
    const link = `${e2e.stack.url}${linkPath}`;
    const page = await fetch(link);
    const html = await page.text();
    expect(page.status).toBe(410);
    expect(html).toContain('Task expired');
    expect(html).not.toContain('name="nonce"');
    // A late submission with a valid link and form nonce (as the page gave before the timeout).
    const nonce = issueSubjectNonce(
      'human_task',
      { id: task.taskId, holder: MANAGER, nowMs: clock.nowMs() },
      e2e.keyring,
    );
    const submitted = await fetch(`${e2e.stack.url}/human-tasks/${task.taskId}`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({
        t: new URL(link).searchParams.get('t') ?? '',
        nonce,
        'f.approve': 'on',
      }).toString(),
    });
    expect(submitted.status).toBe(410);
    expect(await submitted.text()).toContain('Task expired');
    expect((await e2e.stack.store.getHumanTask(task.taskId))?.status).toBe('expired');
  });
});
