/**
 * What the RequestApproval function asks of DynamoDB for a run parked on one approval, every approver reached:
 * the run and its approval read once, the token stored, the notices audited (the audit's commit starts from
 * the run as the token's commit left it; nothing is read to deny when nobody was unreached).
 */
import { describe, expect, it } from 'vitest';
import { requestApproval } from '../../shared/approvals-http/index.ts';
import { FixedClock } from '../support/store.ts';
import { BOSS, keyring, PUBLIC_BASE, parkRun, recordingLogger, store } from './support.ts';

const sent: string[] = [];
store.ctx.doc.middlewareStack.add(
  (next, context) => async (args) => {
    sent.push(String(context.commandName).replace(/Command$/, ''));
    return next(args);
  },
  { step: 'initialize', name: 'requestCounter' },
);

describe('RequestApproval', () => {
  it('reads the run and its approval once and writes twice: the token, then the audited notices', async () => {
    // Prepare
    const clock = new FixedClock();
    const parked = await parkRun(clock, [BOSS]);
    const notices: string[] = [];
    sent.length = 0;

    // Act
    const result = await requestApproval(
      {
        store,
        clock,
        keyring,
        publicBaseUrl: PUBLIC_BASE,
        notifier: {
          channel: 'test',
          reaches: () => true,
          notify: async (n) => void notices.push(n.approver),
        },
        taskTokens: { sendSuccess: async () => 'sent', sendFailure: async () => 'sent' },
        logger: recordingLogger(),
      },
      { runId: parked.run.runId, taskToken: 'token-1' },
    );

    // Assess
    expect(result.status).toBe('notified');
    expect(notices).toEqual([BOSS]);
    expect(sent).toEqual(['GetItem', 'GetItem', 'TransactWriteItems', 'TransactWriteItems']);
    const audit = (await store.listAuditItems(parked.run.runId)) as { type: string }[];
    expect(audit.map((entry) => entry.type)).toContain('approval_notified');
    expect((await store.getApproval(parked.approval.approvalId))?.taskToken).toBe('token-1');
  });
});
