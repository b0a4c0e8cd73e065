import { describe, expect, it } from 'vitest';
import { issueFormNonce, RESULT_TITLES, signApprovalLink } from '../../shared/approvals/index.ts';
import { MAX_FORM_BYTES } from '../../shared/approvals-http/route-decide.ts';
import { verifyAuditChain } from '../../shared/audit/index.ts';
import { RunHandle } from '../../shared/core/engine.ts';
import { driveRun } from '../support/engine.ts';
import { sfnError, useSfnWire } from './sfn-wire.ts';
import {
  ARGS,
  approvalScenario,
  BOSS,
  decide,
  headingOf,
  keyring,
  nonceOf,
  OPS,
  OTHER_KEYRING,
  postForm,
  type Scenario,
  snapshot,
  stateOf,
  store,
} from './support.ts';

const wire = useSfnWire();

const decisionsIn = async (runId: string) =>
  (await store.listAudit(runId)).filter((entry) => entry.type === 'approval_decided');

/** The page's form fields for BOSS: the link token, a fresh nonce and the sealed state from a real render. */
async function formFor(s: Scenario, approver = BOSS) {
  const link = s.linkOf(approver);
  const html = await (await s.app.request(link.path)).text();
  return { t: link.token, nonce: nonceOf(html), ...(stateOf(html) ? { state: stateOf(html)! } : {}) };
}

function expectNoSecretsLogged(s: Scenario, extra: string[] = []) {
  const log = s.logger.lines.join('\n');
  for (const secret of [s.taskToken, s.linkOf(BOSS).token, ...extra]) expect(log).not.toContain(secret);
}

describe('POST /approvals/:approvalId', () => {
  it('approves once: records the decision and audit entry, and resumes the execution with the task token', async () => {
    const s = await approvalScenario(wire);
    const form = await formFor(s);

    // The form's own `approver` field is ignored: the approver is the verified link's.
    const response = await postForm(s.app, s.approvalId, {
      ...form,
      decision: 'approve',
      approver: 'mallory@example.com',
    });
    const html = await response.text();

    expect(response.status).toBe(200);
    expect(headingOf(html)).toBe(RESULT_TITLES.approved);
    expect(await store.getApproval(s.approvalId)).toMatchObject({ status: 'approved', decidedBy: BOSS });
    const decided = await decisionsIn(s.run.runId);
    expect(decided).toHaveLength(1);
    expect(decided[0]).toMatchObject({
      actor: `approver:${BOSS}`,
      data: { approvalId: s.approvalId, decision: 'approved', argsHash: s.approval.argsHash },
    });
    expect(wire.calls).toHaveLength(1);
    expect(wire.calls[0]).toMatchObject({
      target: 'AWSStepFunctions.SendTaskSuccess',
      body: { taskToken: s.taskToken },
    });
    expect(JSON.parse(wire.calls[0]!.body.output as string)).toEqual({
      runId: s.run.runId,
      decidedApprovalId: s.approvalId,
    });
    expectNoSecretsLogged(s, [form.nonce]);
  });

  it('lets the resumed run perform exactly the approved arguments, with a valid audit chain', async () => {
    const s = await approvalScenario(wire);

    await decide(s, 'approve');
    const rest = await driveRun(s.deps, s.run.runId, { turn: s.waiting.turn, segmentStartTurn: 0 });

    expect(rest.at(-1)?.next).toBe('done');
    expect(await store.getNoteLines(s.run.runId, ARGS.name)).toEqual([ARGS.line]);
    expect(
      verifyAuditChain(await store.listAudit(s.run.runId), { owner: s.run.owner, runId: s.run.runId }),
    ).toMatchObject({ ok: true });
  });

  it("decides for the approval's own run when the form action names another run", async () => {
    // Prepare: a second parked run; the form's `run` is only which item to read alongside, never trusted.
    const s = await approvalScenario(wire);
    const other = await approvalScenario(wire);
    const form = await formFor(s);

    // Act
    const response = await s.app.request(`/approvals/${s.approvalId}?run=${other.run.runId}`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({ ...form, decision: 'approve' }).toString(),
    });

    // Assess: this approval decided, on its own run's chain; the other run untouched.
    expect(response.status).toBe(200);
    expect(await decisionsIn(s.run.runId)).toHaveLength(1);
    expect(await decisionsIn(other.run.runId)).toHaveLength(0);
    expect((await store.getRun(s.run.runId))?.approvalDecisions).toEqual([
      expect.objectContaining({ approvalId: s.approvalId, status: 'approved' }),
    ]);
    expect(await store.getApproval(other.approvalId)).toMatchObject({ status: 'pending' });
  });

  it('denies: records the denial and resumes the execution so the next Turn tells the model', async () => {
    const s = await approvalScenario(wire);

    const response = await decide(s, 'deny');

    expect(response.status).toBe(200);
    expect(headingOf(await response.text())).toBe(RESULT_TITLES.denied);
    expect(await store.getApproval(s.approvalId)).toMatchObject({ status: 'denied', decidedBy: BOSS });
    expect(wire.calls.map((call) => call.body.taskToken)).toEqual([s.taskToken]);
  });

  it.each([2, 5])(
    'double-click race: %i concurrent POSTs record exactly one decision; the others get 409 "already decided"',
    async (n) => {
      const s = await approvalScenario(wire);
      const form = await formFor(s);

      const responses = await Promise.all(
        Array.from({ length: n }, () => postForm(s.app, s.approvalId, { ...form, decision: 'approve' })),
      );
      const pages = await Promise.all(
        responses.map(async (r) => ({ status: r.status, heading: headingOf(await r.text()) })),
      );

      expect(pages.filter((p) => p.status === 200)).toEqual([
        { status: 200, heading: RESULT_TITLES.approved },
      ]);
      expect(pages.filter((p) => p.status === 409)).toHaveLength(n - 1);
      expect(new Set(pages.filter((p) => p.status === 409).map((p) => p.heading))).toEqual(
        new Set([RESULT_TITLES.already_decided]),
      );
      expect(await decisionsIn(s.run.runId)).toHaveLength(1);
      expect(wire.calls).toHaveLength(1);
    },
  );

  it('two approvers deciding at once: one decision wins, the other is told who decided', async () => {
    const s = await approvalScenario(wire, [BOSS, OPS]);
    const [bossForm, opsForm] = [await formFor(s, BOSS), await formFor(s, OPS)];

    const [boss, ops] = await Promise.all([
      postForm(s.app, s.approvalId, { ...bossForm, decision: 'approve' }),
      postForm(s.app, s.approvalId, { ...opsForm, decision: 'deny' }),
    ]);

    expect([boss.status, ops.status].sort()).toEqual([200, 409]);
    const approval = (await store.getApproval(s.approvalId))!;
    const loser = boss.status === 409 ? boss : ops;
    expect(await loser.text()).toContain(`${approval.status} by ${approval.decidedBy}`);
    expect(await decisionsIn(s.run.runId)).toHaveLength(1);
  });

  type Bad = [string, (s: Scenario) => Promise<Record<string, string | undefined>>, number, string];
  it.each<Bad>([
    [
      'a forged link signature',
      async (s) => ({
        ...(await formFor(s)),
        t: signApprovalLink(
          {
            approvalId: s.approvalId,
            approver: BOSS,
            expiresAtMs: Date.parse(s.approval.expiresAt),
            argsHash: s.approval.argsHash,
          },
          OTHER_KEYRING,
        ),
      }),
      403,
      RESULT_TITLES.invalid_link,
    ],
    [
      'a token for another approval',
      async (s) => {
        const other = await approvalScenario(wire);
        return { ...(await formFor(s)), t: other.linkOf(BOSS).token };
      },
      403,
      RESULT_TITLES.invalid_link,
    ],
    ['a missing nonce', async (s) => ({ t: s.linkOf(BOSS).token }), 400, RESULT_TITLES.invalid_request],
    [
      'a garbled nonce',
      async (s) => ({ ...(await formFor(s)), nonce: 'garbage' }),
      400,
      RESULT_TITLES.invalid_request,
    ],
    [
      'a forged nonce',
      async (s) => ({
        ...(await formFor(s)),
        nonce: issueFormNonce(
          { approvalId: s.approvalId, approver: BOSS, nowMs: s.clock.nowMs() },
          OTHER_KEYRING,
        ),
      }),
      403,
      RESULT_TITLES.invalid_link,
    ],
    [
      'a nonce rendered for another approver',
      async (s) => ({
        ...(await formFor(s)),
        nonce: issueFormNonce({ approvalId: s.approvalId, approver: OPS, nowMs: s.clock.nowMs() }, keyring),
      }),
      403,
      RESULT_TITLES.invalid_link,
    ],
    [
      'a nonce rendered for another approval',
      async (s) => ({
        ...(await formFor(s)),
        nonce: issueFormNonce(
          { approvalId: 'apr_someoneelse0000', approver: BOSS, nowMs: s.clock.nowMs() },
          keyring,
        ),
      }),
      403,
      RESULT_TITLES.invalid_link,
    ],
    [
      'a nonce rendered too long ago',
      async (s) => ({
        ...(await formFor(s)),
        nonce: issueFormNonce(
          { approvalId: s.approvalId, approver: BOSS, nowMs: s.clock.nowMs() - 16 * 60_000 },
          keyring,
        ),
      }),
      403,
      RESULT_TITLES.form_expired,
    ],
    [
      'no decision',
      async (s) => ({ ...(await formFor(s)), decision: undefined }),
      400,
      RESULT_TITLES.invalid_request,
    ],
    [
      'an unknown decision',
      async (s) => ({ ...(await formFor(s)), decision: 'maybe' }),
      400,
      RESULT_TITLES.invalid_request,
    ],
    [
      'an inherited property as the decision',
      async (s) => ({ ...(await formFor(s)), decision: 'toString' }),
      400,
      RESULT_TITLES.invalid_request,
    ],
  ])('refuses %s with a 4xx page and changes nothing', async (_name, fields, status, title) => {
    const s = await approvalScenario(wire);
    // `undefined` leaves a field out of the form.
    const form = Object.fromEntries(
      Object.entries({ decision: 'approve', ...(await fields(s)) }).filter(
        (entry): entry is [string, string] => entry[1] !== undefined,
      ),
    );
    const before = await snapshot(s.run.runId, s.approvalId);

    const response = await postForm(s.app, s.approvalId, form);

    expect(response.status).toBe(status);
    expect(headingOf(await response.text())).toBe(title);
    expect(await snapshot(s.run.runId, s.approvalId)).toEqual(before);
    expect(wire.calls).toEqual([]);
  });

  it.each([
    ['a JSON body', 'application/json', JSON.stringify({ t: 'x', nonce: 'y', decision: 'approve' })],
    ['a repeated field', 'application/x-www-form-urlencoded', 'decision=deny&decision=approve&t=x&nonce=y'],
    ['an oversized body', 'application/x-www-form-urlencoded', `t=${'a'.repeat(MAX_FORM_BYTES + 1)}`],
  ])('refuses %s as an invalid request and changes nothing', async (_name, contentType, body) => {
    const s = await approvalScenario(wire);
    const before = await snapshot(s.run.runId, s.approvalId);

    const response = await s.app.request(`/approvals/${s.approvalId}`, {
      method: 'POST',
      headers: { 'content-type': contentType },
      body,
    });

    expect([400, 413]).toContain(response.status);
    expect(headingOf(await response.text())).toBe(RESULT_TITLES.invalid_request);
    expect(await snapshot(s.run.runId, s.approvalId)).toEqual(before);
  });

  it('refuses a replayed link after the decision: 409 "already decided", nothing changes', async () => {
    const s = await approvalScenario(wire);
    const form = await formFor(s);
    await postForm(s.app, s.approvalId, { ...form, decision: 'approve' });
    const before = await snapshot(s.run.runId, s.approvalId);
    wire.reset();

    const replay = await postForm(s.app, s.approvalId, { ...form, decision: 'deny' });
    const reopened = await s.app.request(s.linkOf(BOSS).path);

    expect(replay.status).toBe(409);
    expect(await replay.text()).toContain(`approved by ${BOSS}`);
    expect(reopened.status).toBe(409);
    expect(await snapshot(s.run.runId, s.approvalId)).toEqual(before);
    expect(wire.calls).toEqual([]);
  });

  it('refuses a decision after expiry with 410, and nothing changes', async () => {
    const s = await approvalScenario(wire);
    const form = await formFor(s);
    s.clock.advance(600_000);
    const before = await snapshot(s.run.runId, s.approvalId);

    const response = await postForm(s.app, s.approvalId, { ...form, decision: 'approve' });

    expect(response.status).toBe(410);
    expect(headingOf(await response.text())).toBe(RESULT_TITLES.expired_link);
    expect(await snapshot(s.run.runId, s.approvalId)).toEqual(before);
    expect(wire.calls).toEqual([]);
  });

  it('refuses a decision once the approval expired even with a longer-lived link (410, fail closed)', async () => {
    const s = await approvalScenario(wire);
    const t = signApprovalLink(
      {
        approvalId: s.approvalId,
        approver: BOSS,
        expiresAtMs: Date.parse(s.approval.expiresAt) + 3_600_000,
        argsHash: s.approval.argsHash,
      },
      keyring,
    );
    s.clock.advance(600_000);
    const nonce = issueFormNonce(
      { approvalId: s.approvalId, approver: BOSS, nowMs: s.clock.nowMs() },
      keyring,
    );
    const before = await snapshot(s.run.runId, s.approvalId);

    const response = await postForm(s.app, s.approvalId, { t, nonce, decision: 'approve' });

    expect(response.status).toBe(410);
    expect(headingOf(await response.text())).toBe(RESULT_TITLES.approval_expired);
    expect(await snapshot(s.run.runId, s.approvalId)).toEqual(before);
  });

  it('refuses a decision once the run ended (410), and nothing changes', async () => {
    const s = await approvalScenario(wire);
    const form = await formFor(s);
    const run = (await store.getRun(s.run.runId))!;
    await new RunHandle(run, { store, clock: s.clock }).commit({
      next: (r) => ({ ...r, status: 'cancelled', stopReason: 'cancelled', endedAt: r.updatedAt }),
    });
    const before = await snapshot(s.run.runId, s.approvalId);

    const response = await postForm(s.app, s.approvalId, { ...form, decision: 'approve' });

    expect(response.status).toBe(410);
    expect(headingOf(await response.text())).toBe('Run ended');
    expect(await snapshot(s.run.runId, s.approvalId)).toEqual(before);
    expect(wire.calls).toEqual([]);
  });

  it('keeps the decision and shows success when SendTaskSuccess answers TaskTimedOut', async () => {
    const s = await approvalScenario(wire);
    wire.replies.push(sfnError('TaskTimedOut'));

    const response = await decide(s, 'approve');

    expect(response.status).toBe(200);
    expect(headingOf(await response.text())).toBe(RESULT_TITLES.approved);
    expect(await store.getApproval(s.approvalId)).toMatchObject({ status: 'approved', decidedBy: BOSS });
    expect(wire.calls).toHaveLength(1);
    expect(s.logger.lines.some((line) => line.includes('"answer":"already_closed"'))).toBe(true);
    expectNoSecretsLogged(s);
  });

  it('keeps the decision and shows success when Step Functions stays unavailable; logs the failure without the token', async () => {
    const s = await approvalScenario(wire);
    for (let i = 0; i < 4; i++) wire.replies.push(sfnError('ServiceUnavailable', 503));

    const response = await decide(s, 'approve');

    expect(response.status).toBe(200);
    expect(await store.getApproval(s.approvalId)).toMatchObject({ status: 'approved' });
    expect(wire.calls).toHaveLength(4);
    expect(
      s.logger.lines.some(
        (line) => line.includes('could not resume the run') && line.includes('ServiceUnavailable'),
      ),
    ).toBe(true);
    expectNoSecretsLogged(s);
  });

  it('resumes only on the last pending decision of a run', async () => {
    const s = await approvalScenario(wire);
    // A second pending approval on the same run, as when one turn gates two calls.
    const run = (await store.getRun(s.run.runId))!;
    const second = {
      ...s.approval,
      approvalId: 'apr_second0000000',
      toolUseId: 'g2',
      taskToken: s.taskToken,
    };
    await new RunHandle(run, { store, clock: s.clock }).commit({
      next: (r) => ({ ...r, pendingApprovalIds: [...r.pendingApprovalIds, second.approvalId] }),
      approvalCreate: [second],
    });
    const secondLink = signApprovalLink(
      {
        approvalId: second.approvalId,
        approver: BOSS,
        expiresAtMs: Date.parse(second.expiresAt),
        argsHash: second.argsHash,
      },
      keyring,
    );

    await decide(s, 'approve');
    const afterFirst = wire.calls.length;
    const page = await s.app.request(`/approvals/${second.approvalId}?t=${secondLink}`);
    await postForm(s.app, second.approvalId, {
      t: secondLink,
      nonce: nonceOf(await page.text()),
      decision: 'deny',
    });

    expect(afterFirst).toBe(0);
    expect(wire.calls.map((call) => call.body.taskToken)).toEqual([s.taskToken]);
    expect(JSON.parse(wire.calls[0]!.body.output as string)).toEqual({
      runId: s.run.runId,
      decidedApprovalId: second.approvalId,
    });
  });
});
