import { describe, expect, it } from 'vitest';
import { verifyApprovalLink } from '../../shared/approvals/index.ts';
import { publicBaseUrlFrom } from '../../shared/approvals-http/deps.ts';
import { type RequestApprovalDeps, requestApproval } from '../../shared/approvals-http/request-approval.ts';
import { sfnTaskTokens } from '../../shared/approvals-http/task-tokens.ts';
import { verifyAuditChain } from '../../shared/audit/index.ts';
import { decideApproval } from '../../shared/core/approval-ops.ts';
import { type ApprovalNotice, inboxNotifier, type Notifier, snsNotifier } from '../../shared/notify/index.ts';
import { forEveryOwner } from '../notify/fixtures.ts';
import { driveRun } from '../support/engine.ts';
import { FixedClock } from '../support/store.ts';
import { ARGS, BOSS, keyring, OPS, PUBLIC_BASE, parkRun, recordingLogger, store } from './support.ts';
import { useWires } from './wires.ts';

const wires = useWires();

function depsWith(clock: FixedClock, notifier: Notifier) {
  const logger = recordingLogger();
  const deps: RequestApprovalDeps = {
    store,
    clock,
    keyring,
    publicBaseUrl: PUBLIC_BASE,
    notifier,
    taskTokens: sfnTaskTokens(wires.sfn.client, { sleep: async () => {} }),
    logger,
  };
  return { deps, logger };
}

const notifiedEntries = async (runId: string) =>
  (await store.listAudit(runId)).filter((entry) => entry.type === 'approval_notified');

describe('requestApproval', () => {
  it('stores the task token on the pending approval; a second call replaces it', async () => {
    const clock = new FixedClock();
    const { run, approval } = await parkRun(clock);
    const { deps } = depsWith(clock, inboxNotifier());

    await requestApproval(deps, { runId: run.runId, taskToken: 'token-one' });
    const first = await store.getApproval(approval.approvalId);
    await requestApproval(deps, { runId: run.runId, taskToken: 'token-two' });
    const second = await store.getApproval(approval.approvalId);

    expect(first?.taskToken).toBe('token-one');
    expect(second?.taskToken).toBe('token-two');
    expect(second?.status).toBe('pending');
  });

  it('resumes with the newest token after a replacement', async () => {
    const clock = new FixedClock();
    const { run, approval } = await parkRun(clock);
    const { deps } = depsWith(clock, inboxNotifier());
    await requestApproval(deps, { runId: run.runId, taskToken: 'token-one' });
    await requestApproval(deps, { runId: run.runId, taskToken: 'token-two' });

    const decided = await decideApproval(
      { store, clock },
      { approvalId: approval.approvalId, approver: BOSS, decision: 'approved' },
    );

    expect(decided.resumeToken).toBe('token-two');
  });

  it('notifies each approver with their own link, which verifies for that approval, approver and arguments', async () => {
    const clock = new FixedClock();
    const { run, approval } = await parkRun(clock, [BOSS, OPS]);
    const inbox = inboxNotifier();
    const { deps } = depsWith(clock, inbox);

    const result = await requestApproval(deps, { runId: run.runId, taskToken: 'task-token-xyz' });

    expect(result).toMatchObject({ status: 'notified', failed: [] });
    const notices = inbox.notices();
    expect(notices.map((n) => n.approver).sort()).toEqual([BOSS, OPS]);
    for (const notice of notices) {
      expect(notice).toMatchObject({
        workflowName: 'release-notes',
        runId: run.runId,
        tool: 'notes_append',
        expiresAt: approval.expiresAt,
      });
      expect(JSON.parse(notice.argsPreview)).toEqual(ARGS);
      const url = new URL(notice.url);
      expect(`${url.origin}${url.pathname}`).toBe(`${PUBLIC_BASE}/approvals/${approval.approvalId}`);
      // The token, then which run and workflow head the page reads with the approval (unsigned read hints).
      expect(Object.fromEntries(url.searchParams)).toEqual({
        t: url.searchParams.get('t'),
        run: run.runId,
        owner: run.owner,
        wf: run.workflowId,
      });
      expect(notice.url).not.toContain('task-token-xyz');
      const verified = verifyApprovalLink(url.searchParams.get('t'), keyring, {
        nowMs: clock.nowMs(),
        approvalId: approval.approvalId,
        argsHash: approval.argsHash,
      });
      expect(verified).toMatchObject({
        ok: true,
        claims: { approver: notice.approver, expiresAtMs: Date.parse(approval.expiresAt) },
      });
    }
  });

  it('records one approval_notified entry per approver, without the link or the task token', async () => {
    const clock = new FixedClock();
    const { run, approval } = await parkRun(clock, [BOSS, OPS]);
    const inbox = inboxNotifier();
    const { deps, logger } = depsWith(clock, inbox);

    await requestApproval(deps, { runId: run.runId, taskToken: 'task-token-secret-abc' });

    const entries = await notifiedEntries(run.runId);
    expect(
      entries.map((e) => e.data).sort((a, b) => String(a.approver).localeCompare(String(b.approver))),
    ).toEqual([
      { approvalId: approval.approvalId, approver: BOSS, channel: 'inbox' },
      { approvalId: approval.approvalId, approver: OPS, channel: 'inbox' },
    ]);
    expect(entries.every((e) => e.actor === 'system')).toBe(true);
    const audit = await store.listAudit(run.runId);
    const everything = JSON.stringify(audit) + logger.lines.join('\n');
    expect(everything).not.toContain('task-token-secret-abc');
    for (const notice of inbox.notices())
      expect(everything).not.toContain(new URL(notice.url).searchParams.get('t')!);
    expect(verifyAuditChain(audit, { owner: run.owner, runId: run.runId })).toMatchObject({ ok: true });
    expect((await store.getRun(run.runId))?.status).toBe('awaiting_approval');
  });

  it('publishes one SNS message per approver, routed by the approver attribute, and audits channel sns', async () => {
    const clock = new FixedClock();
    const { run, approval } = await parkRun(clock, [BOSS, OPS]);
    wires.sns.calls.length = 0;
    const { deps } = depsWith(
      clock,
      snsNotifier(wires.sns.client, 'arn:aws:sns:eu-west-1:123456789012:notices', forEveryOwner(BOSS, OPS)),
    );

    await requestApproval(deps, { runId: run.runId, taskToken: 'task-token-sns' });

    const published = wires.sns.calls.map((call) => ({
      approver: call.params.get('MessageAttributes.entry.1.Value.StringValue'),
      link: /http:\/\/127\.0\.0\.1:8787\/approvals\/\S+/.exec(call.params.get('Message')!)?.[0],
    }));
    expect(published.map((p) => p.approver).sort()).toEqual([BOSS, OPS]);
    for (const { approver, link } of published) {
      const verified = verifyApprovalLink(new URL(link!).searchParams.get('t'), keyring, {
        nowMs: clock.nowMs(),
        approvalId: approval.approvalId,
      });
      expect(verified).toMatchObject({ ok: true, claims: { approver } });
    }
    expect((await notifiedEntries(run.runId)).map((e) => e.data.channel)).toEqual(['sns', 'sns']);
  });

  it('answers the wait at once when the approval was decided before the token arrived', async () => {
    const clock = new FixedClock();
    const { run, approval } = await parkRun(clock);
    const decided = await decideApproval(
      { store, clock },
      { approvalId: approval.approvalId, approver: BOSS, decision: 'approved' },
    );
    const inbox = inboxNotifier();
    const { deps } = depsWith(clock, inbox);
    const auditBefore = (await store.listAudit(run.runId)).length;

    const result = await requestApproval(deps, { runId: run.runId, taskToken: 'late-token' });

    expect(decided.resumeToken).toBeUndefined();
    expect(result).toEqual({ status: 'not_waiting', answer: 'sent' });
    expect(wires.sfn.calls).toHaveLength(1);
    expect(wires.sfn.calls[0]).toMatchObject({
      target: 'AWSStepFunctions.SendTaskSuccess',
      body: { taskToken: 'late-token' },
    });
    expect(inbox.notices()).toEqual([]);
    expect((await store.listAudit(run.runId)).length).toBe(auditBefore);
  });

  it('audits only the notices that went out when one approver cannot be notified', async () => {
    const clock = new FixedClock();
    const { run } = await parkRun(clock, [BOSS, OPS]);
    const sent: ApprovalNotice[] = [];
    const flaky: Notifier = {
      channel: 'sns',
      reaches: () => true,
      async notify(notice) {
        if (notice.approver === OPS)
          throw Object.assign(new Error(`cannot send ${notice.url}`), { name: 'InvalidParameter' });
        sent.push(notice);
      },
    };
    const { deps, logger } = depsWith(clock, flaky);

    const result = await requestApproval(deps, { runId: run.runId, taskToken: 't' });

    expect(result).toMatchObject({
      status: 'notified',
      notified: [{ approver: BOSS }],
      failed: [{ approver: OPS, error: 'InvalidParameter' }],
    });
    expect((await notifiedEntries(run.runId)).map((e) => e.data.approver)).toEqual([BOSS]);
    expect(logger.lines.join('\n')).not.toContain('?t=');
  });

  it('denies at once as undeliverable (without links) and audits no notice when every send fails', async () => {
    const clock = new FixedClock();
    const { run, approval } = await parkRun(clock, [BOSS, OPS]);
    const down: Notifier = {
      channel: 'sns',
      reaches: () => true,
      async notify(notice) {
        throw new Error(`SNS down, dropping ${notice.url}`);
      },
    };
    const { deps, logger } = depsWith(clock, down);

    const result = await requestApproval(deps, { runId: run.runId, taskToken: 't-down' });

    expect(result).toEqual({ status: 'undeliverable', undeliverable: [approval.approvalId], answer: 'sent' });
    expect(await notifiedEntries(run.runId)).toEqual([]);
    expect((await store.getApproval(approval.approvalId))?.status).toBe('undeliverable');
    expect(logger.lines.join('\n')).not.toContain('?t=');
  });
});

describe('requestApproval: approvers the channel cannot reach', () => {
  const TOPIC = 'arn:aws:sns:eu-west-1:123456789012:notices';

  it('publishes and audits approval_notified only for a subscribed approver; the other gets nothing', async () => {
    const clock = new FixedClock();
    const { run, approval } = await parkRun(clock, [BOSS, OPS]);
    wires.sns.calls.length = 0;
    const { deps } = depsWith(clock, snsNotifier(wires.sns.client, TOPIC, forEveryOwner(BOSS)));

    const result = await requestApproval(deps, { runId: run.runId, taskToken: 't-half' });

    expect(result).toMatchObject({ status: 'notified', notified: [{ approver: BOSS }], undeliverable: [] });
    expect(wires.sns.calls.map((c) => c.params.get('MessageAttributes.entry.1.Value.StringValue'))).toEqual([
      BOSS,
    ]);
    expect((await notifiedEntries(run.runId)).map((e) => e.data)).toEqual([
      { approvalId: approval.approvalId, approver: BOSS, channel: 'sns' },
    ]);
    expect((await store.getApproval(approval.approvalId))?.status).toBe('pending');
    expect(wires.sfn.calls).toEqual([]);
  });

  it('with no subscribed approver: nothing published, the approval is undeliverable, the wait answered, the owner told', async () => {
    const clock = new FixedClock();
    const { run, approval } = await parkRun(clock, [BOSS, OPS]);
    wires.sns.calls.length = 0;
    const owners = inboxNotifier();
    const { deps, logger } = depsWith(
      clock,
      snsNotifier(wires.sns.client, TOPIC, forEveryOwner('someone@example.com')),
    );

    const result = await requestApproval(
      { ...deps, owners: { notifier: owners, apiBaseUrl: 'https://api.example.com' } },
      { runId: run.runId, taskToken: 't-nobody' },
    );

    expect(result).toEqual({ status: 'undeliverable', undeliverable: [approval.approvalId], answer: 'sent' });
    expect(wires.sns.calls).toEqual([]);
    expect(await notifiedEntries(run.runId)).toEqual([]);
    const entries = (await store.listAudit(run.runId)).filter((e) => e.type === 'approval_undeliverable');
    expect(entries.map((e) => e.data)).toEqual([
      {
        approvalId: approval.approvalId,
        tool: 'notes_append',
        approvers: [
          { approver: BOSS, why: 'unreachable' },
          { approver: OPS, why: 'unreachable' },
        ],
      },
    ]);
    expect(wires.sfn.calls).toHaveLength(1);
    expect(wires.sfn.calls[0]).toMatchObject({
      target: 'AWSStepFunctions.SendTaskSuccess',
      body: { taskToken: 't-nobody' },
    });
    expect(owners.ownerNotices()).toEqual([
      expect.objectContaining({
        owner: run.owner,
        kind: 'approval_undeliverable',
        runId: run.runId,
        runUrl: `https://api.example.com/v1/runs/${run.runId}`,
        refused: [{ tool: 'notes_append', reason: 'undeliverable' }],
      }),
    ]);
    expect(
      logger.lines.some((line) => line.includes('"level":"error"') && line.includes('undeliverable')),
    ).toBe(true);
    expect(
      verifyAuditChain(await store.listAudit(run.runId), { owner: run.owner, runId: run.runId }),
    ).toMatchObject({
      ok: true,
    });
  });

  it('the run goes on at once: the model is told no approver could be reached and the run ends denied (degraded)', async () => {
    const clock = new FixedClock();
    const parked = await parkRun(clock, [OPS]);
    const { deps } = depsWith(clock, snsNotifier(wires.sns.client, TOPIC, forEveryOwner(BOSS)));
    await requestApproval(deps, { runId: parked.run.runId, taskToken: 't-run' });

    const rest = await driveRun(parked.deps, parked.run.runId, {
      turn: parked.waiting.turn,
      segmentStartTurn: 0,
    });

    expect(rest.at(-1)?.next).toBe('done');
    const run = await store.getRun(parked.run.runId);
    expect(run).toMatchObject({ status: 'denied', degraded: { count: 1 } });
    expect(run?.degraded?.refused[0]?.reason).toContain('no approver could be reached');
    expect(await store.getNoteLines(parked.run.runId, ARGS.name)).toBeUndefined();
    const messages = await store.listMessages(parked.run.runId);
    expect(JSON.stringify(messages)).toContain('no approver could be reached');
  });
});

describe('publicBaseUrlFrom', () => {
  it.each([
    [
      'https://abc.execute-api.eu-west-1.amazonaws.com/approvals',
      'https://abc.execute-api.eu-west-1.amazonaws.com',
    ],
    ['https://approve.example.com/approvals/', 'https://approve.example.com'],
    ['https://example.com/prod', 'https://example.com/prod'],
  ])('turns %s into %s', (input, expected) => {
    expect(publicBaseUrlFrom(input)).toBe(expected);
  });
});
