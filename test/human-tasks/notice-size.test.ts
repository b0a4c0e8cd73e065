/**
 * A human-task notice fits an SNS message (at most 256 KiB, https://docs.aws.amazon.com/sns/latest/api/API_Publish.html)
 * and an email subject (under 100 printable ASCII characters) whatever the run holds: every field is bounded
 * (a task title at most 200 characters, the context preview 300 however large the context) and the body
 * carries only the owner's own run, task and link.
 */
import { describe, expect, it } from 'vitest';
import { signedTaskUrl } from '../../shared/human-tasks/notices.ts';
import { argsPreview, noticeBody, noticeSubject } from '../../shared/notify/index.ts';
import type { HumanTask } from '../../shared/schemas/human-task.ts';

const SNS_MESSAGE_LIMIT = 256 * 1024;
const keyring = { current: { kid: 'k1', secret: 'notice-size-signing-secret-aaaaaaaaaaaaaaaaaaaa' } };

describe('human-task notice size', () => {
  it('stays far under the SNS limit with every field at its largest', () => {
    const context = Object.fromEntries(
      Array.from({ length: 50 }, (_, i) => [`steps.n${i}.output`, '€'.repeat(4000)]),
    );
    const task = {
      taskId: `htk_${'a'.repeat(32)}`,
      expiresAt: '2026-12-08T12:00:00.000Z',
      formHash: 'f'.repeat(64),
    } as unknown as HumanTask;
    const notice = {
      owner: '123456789012:role:ops',
      approver: `${'a'.repeat(64)}@${'b'.repeat(180)}.example`,
      subject: 'human_task' as const,
      workflowName: 'w'.repeat(64),
      runId: `run_${'0'.repeat(32)}`,
      tool: '€'.repeat(200),
      argsPreview: argsPreview(context),
      expiresAt: task.expiresAt,
      url: signedTaskUrl(`https://${'h'.repeat(200)}.example/prod`, keyring as never, task, 'x@example.com'),
    };
    const body = noticeBody(notice);
    expect(Buffer.byteLength(body, 'utf8')).toBeLessThan(SNS_MESSAGE_LIMIT / 32);
    expect(noticeSubject(notice).length).toBeLessThan(100);
    expect(body).not.toContain('€'.repeat(301));
  });

  it('names the owner whose run asks, in the subject and the body', () => {
    const notice = {
      owner: '123456789012:role:ops',
      approver: 'carol@example.com',
      subject: 'human_task' as const,
      workflowName: 'refunds',
      runId: 'run_1',
      tool: 'Approve a refund',
      argsPreview: '{}',
      expiresAt: '2026-12-08T12:00:00.000Z',
      url: 'https://approve.example.com/human-tasks/htk_1?t=x',
    };
    expect(noticeSubject(notice)).toBe('[123456789012:role:ops] Task for you: Approve a refund (refunds)');
    expect(noticeBody(notice)).toContain('Owner:      123456789012:role:ops (who asks)');
  });
});
