/**
 * A decision carries what its page read in the form's sealed state (shared/approvals-http/form-state.ts): on
 * any container (a fresh app instance is another Lambda execution environment) it commits in one transaction,
 * no read. A state is never trusted over the store: one that does not open (altered, forged, another approval's,
 * another render's) is ignored and the decision reads; one that went stale fails the commit's conditions, and
 * the decision reads again.
 */
import { describe, expect, it } from 'vitest';
import { createActionCatalog } from '../../shared/actions/index.ts';
import { RESULT_TITLES, sealToken } from '../../shared/approvals/index.ts';
import { createApprovalApp } from '../../shared/approvals-http/app.ts';
import { requestApproval } from '../../shared/approvals-http/request-approval.ts';
import { sfnTaskTokens } from '../../shared/approvals-http/task-tokens.ts';
import { verifyAuditChain } from '../../shared/audit/index.ts';
import { RunHandle } from '../../shared/core/engine.ts';
import { inboxNotifier } from '../../shared/notify/index.ts';
import type { DynamoStore } from '../../shared/store/index.ts';
import { useSfnWire } from './sfn-wire.ts';
import {
  ARGS,
  approvalScenario,
  BOSS,
  countedStore,
  headingOf,
  hiddenFieldsOf,
  keyring,
  OPS,
  OTHER_KEYRING,
  PUBLIC_BASE,
  postForm,
  type Scenario,
  snapshot,
  store,
} from './support.ts';

const wire = useSfnWire();

/** The approval pages of another container (another Lambda execution environment) on `pages`. */
function otherContainer(s: Scenario, pages: DynamoStore = store) {
  return createApprovalApp({
    store: pages,
    clock: s.clock,
    keyring,
    taskTokens: sfnTaskTokens(wire.client, { sleep: async () => {} }),
    publicBaseUrl: PUBLIC_BASE,
    actions: createActionCatalog({ notes: store }),
    logger: s.logger,
  });
}

/** Opens the approver's link on `app`: the form's hidden fields (token, nonce, sealed state). */
async function formOn(app: Scenario['app'], s: Scenario, approver = BOSS) {
  const link = s.linkOf(approver);
  const page = await app.request(link.path);
  expect(page.status).toBe(200);
  return hiddenFieldsOf(await page.text(), link.token);
}

/** The audit chain of the scenario's run verifies. */
async function chainIsValid(s: Scenario) {
  return verifyAuditChain(await store.listAudit(s.run.runId), { owner: s.run.owner, runId: s.run.runId });
}

const ignoredStates = (s: Scenario) =>
  s.logger.lines
    .filter((line) => line.includes('approval form state ignored'))
    .map((line) => JSON.parse(line));

describe('A decision with its page’s sealed state', () => {
  it('on another container than the page’s: one transaction, no read, and the run resumed', async () => {
    // Prepare
    const pages = countedStore();
    const s = await approvalScenario(wire, [BOSS]);
    const html = await (await s.app.request(s.linkOf(BOSS).path)).text();
    const form = hiddenFieldsOf(html, s.linkOf(BOSS).token);
    expect(form.state).toBeDefined();
    // The state holds the task token, sealed: the page never shows it.
    expect(html).not.toContain(s.taskToken);

    // Act
    const response = await postForm(otherContainer(s, pages), s.approvalId, { ...form, decision: 'approve' });

    // Assess
    expect(response.status).toBe(200);
    expect(headingOf(await response.text())).toBe(RESULT_TITLES.approved);
    expect(pages.sent).toEqual(['TransactWriteItems']);
    expect(await store.getApproval(s.approvalId)).toMatchObject({ status: 'approved', decidedBy: BOSS });
    expect(wire.calls).toEqual([
      expect.objectContaining({
        target: 'AWSStepFunctions.SendTaskSuccess',
        body: expect.objectContaining({ taskToken: s.taskToken }),
      }),
    ]);
    expect(await chainIsValid(s)).toMatchObject({ ok: true });
    expect(ignoredStates(s)).toEqual([]);
    expect(s.logger.lines.join('\n')).not.toContain(form.state!);
  });

  it('on the page’s own container: the same one transaction', async () => {
    // Prepare
    const pages = countedStore();
    const s = await approvalScenario(wire, [BOSS], pages);
    const form = await formOn(s.app, s);
    pages.sent.length = 0;

    // Act
    const response = await postForm(s.app, s.approvalId, { ...form, decision: 'deny' });

    // Assess
    expect(response.status).toBe(200);
    expect(pages.sent).toEqual(['TransactWriteItems']);
    expect(await store.getApproval(s.approvalId)).toMatchObject({ status: 'denied', decidedBy: BOSS });
  });

  it('without a state (an API client, a page of an earlier release): reads the approval and run, then decides', async () => {
    // Prepare
    const pages = countedStore();
    const s = await approvalScenario(wire, [BOSS]);
    const { state: _state, ...form } = await formOn(s.app, s);

    // Act
    const response = await otherContainer(s, pages).request(`/approvals/${s.approvalId}?run=${s.run.runId}`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({ ...form, decision: 'approve' }).toString(),
    });

    // Assess
    expect(response.status).toBe(200);
    expect(pages.sent).toEqual(['BatchGetItem APR,RUN', 'TransactWriteItems']);
    expect(await store.getApproval(s.approvalId)).toMatchObject({ status: 'approved', decidedBy: BOSS });
  });

  it('a second decision from the same page (its state stale): "already decided", nothing changes', async () => {
    // Prepare
    const s = await approvalScenario(wire);
    const form = await formOn(s.app, s);
    await postForm(s.app, s.approvalId, { ...form, decision: 'approve' });
    const approval = await store.getApproval(s.approvalId);
    const audit = await store.listAudit(s.run.runId);
    wire.reset();

    // Act
    const again = await postForm(otherContainer(s), s.approvalId, { ...form, decision: 'deny' });

    // Assess
    expect(again.status).toBe(409);
    expect(headingOf(await again.text())).toBe('Already decided');
    expect(await store.getApproval(s.approvalId)).toEqual(approval);
    expect(await store.listAudit(s.run.runId)).toEqual(audit);
    expect(wire.calls).toEqual([]);
  });

  it('a state whose approval another approver decided since: told who decided, nothing changes', async () => {
    // Prepare
    const s = await approvalScenario(wire, [BOSS, OPS]);
    const bossForm = await formOn(s.app, s, BOSS);
    const opsForm = await formOn(s.app, s, OPS);
    expect((await postForm(s.app, s.approvalId, { ...opsForm, decision: 'deny' })).status).toBe(200);
    const decided = await store.getApproval(s.approvalId);
    wire.reset();

    // Act
    const response = await postForm(otherContainer(s), s.approvalId, { ...bossForm, decision: 'approve' });

    // Assess
    expect(response.status).toBe(409);
    expect(await response.text()).toContain(OPS);
    expect(await store.getApproval(s.approvalId)).toEqual(decided);
    expect(wire.calls).toEqual([]);
    expect(await chainIsValid(s)).toMatchObject({ ok: true });
  });

  it('a state whose wait was requested again since (a new task token): resumes with the new token', async () => {
    // Prepare: the page is read, then a retried RequestApproval replaces the task token.
    const s = await approvalScenario(wire);
    const form = await formOn(s.app, s);
    const newToken = `${s.taskToken}-again`;
    await requestApproval(
      {
        store,
        clock: s.clock,
        keyring,
        publicBaseUrl: PUBLIC_BASE,
        notifier: inboxNotifier(),
        taskTokens: sfnTaskTokens(wire.client, { sleep: async () => {} }),
        logger: s.logger,
      },
      { runId: s.run.runId, taskToken: newToken },
    );
    expect(await store.getApproval(s.approvalId)).toMatchObject({ taskToken: newToken });
    wire.reset();

    // Act
    const response = await postForm(otherContainer(s), s.approvalId, { ...form, decision: 'approve' });

    // Assess: the stale state's commit failed its condition; the decision read again and resumed the live wait.
    expect(response.status).toBe(200);
    expect(await store.getApproval(s.approvalId)).toMatchObject({ status: 'approved', taskToken: newToken });
    expect(wire.calls).toEqual([
      expect.objectContaining({
        target: 'AWSStepFunctions.SendTaskSuccess',
        body: expect.objectContaining({ taskToken: newToken }),
      }),
    ]);
    expect(await chainIsValid(s)).toMatchObject({ ok: true });
  });

  it('a state whose run moved on since the page: the commit fails its fence, the decision reads and decides', async () => {
    // Prepare: another write of the run between the page and the click.
    const pages = countedStore();
    const s = await approvalScenario(wire);
    const form = await formOn(s.app, s);
    const run = (await store.getRun(s.run.runId))!;
    await new RunHandle(run, { store, clock: s.clock }).commit({ next: (r) => ({ ...r }) });

    // Act
    const response = await postForm(otherContainer(s, pages), s.approvalId, { ...form, decision: 'approve' });

    // Assess
    expect(response.status).toBe(200);
    expect(pages.sent).toEqual(['TransactWriteItems', 'GetItem', 'GetItem', 'TransactWriteItems']);
    expect(await store.getApproval(s.approvalId)).toMatchObject({ status: 'approved', decidedBy: BOSS });
    expect((await store.getRun(s.run.runId))?.rev).toBe(run.rev + 2);
    expect(await chainIsValid(s)).toMatchObject({ ok: true });
    expect(wire.calls.map((call) => call.body.taskToken)).toEqual([s.taskToken]);
  });
});

describe('A decision with a state that does not open: ignored, the decision reads', () => {
  /** Posts the page's form with `state` replaced; the decision's requests on a container of its own. */
  async function postWithState(s: Scenario, state: (form: Record<string, string>) => string) {
    const pages = countedStore();
    const form = await formOn(s.app, s);
    const response = await postForm(otherContainer(s, pages), s.approvalId, {
      ...form,
      state: state(form),
      decision: 'approve',
    });
    return { response, sent: pages.sent };
  }

  it('an altered state: the decision is recorded on the stored approval and run, the chain valid', async () => {
    // Prepare
    const s = await approvalScenario(wire);

    // Act: one character of the ciphertext changed.
    const { response, sent } = await postWithState(s, ({ state }) => {
      const parts = state!.split('.');
      const sealed = parts[4]!;
      parts[4] = `${sealed[0] === 'A' ? 'B' : 'A'}${sealed.slice(1)}`;
      return parts.join('.');
    });

    // Assess
    expect(response.status).toBe(200);
    expect(sent).toEqual(['GetItem', 'GetItem', 'TransactWriteItems']);
    expect(ignoredStates(s)).toEqual([expect.objectContaining({ reason: 'bad_seal' })]);
    expect(s.logger.lines.join('\n')).not.toContain(s.taskToken);
    expect(await store.getApproval(s.approvalId)).toMatchObject({ status: 'approved', args: ARGS });
    expect(await chainIsValid(s)).toMatchObject({ ok: true });
  });

  it('a state sealed with another key around other arguments: never approved on them', async () => {
    // Prepare: a forger's state, for this approval and nonce, naming other arguments and an earlier run item.
    const s = await approvalScenario(wire);
    const forged = { ...s.approval, args: { name: 'deploy-log', line: 'rm -rf /' }, taskToken: 'forged' };

    // Act
    const { response } = await postWithState(s, ({ nonce }) =>
      sealToken('wf-approval/v1/form-state\n', { approval: forged, run: s.run }, OTHER_KEYRING, {
        approvalId: s.approvalId,
        approver: BOSS,
        nonce,
      }),
    );

    // Assess
    expect(response.status).toBe(200);
    expect(ignoredStates(s)).toEqual([expect.objectContaining({ reason: 'bad_seal' })]);
    expect(await store.getApproval(s.approvalId)).toMatchObject({ status: 'approved', args: ARGS });
    const decided = (await store.listAudit(s.run.runId)).filter((entry) => entry.type === 'approval_decided');
    expect(decided).toEqual([
      expect.objectContaining({ data: expect.objectContaining({ argsHash: s.approval.argsHash }) }),
    ]);
    expect(wire.calls.map((call) => call.body.taskToken)).toEqual([s.taskToken]);
    expect(await chainIsValid(s)).toMatchObject({ ok: true });
  });

  it("another approval's state (same approver, same key): ignored, this approval decided, the other untouched", async () => {
    // Prepare
    const s = await approvalScenario(wire);
    const other = await approvalScenario(wire);
    const otherForm = await formOn(other.app, other);
    const untouched = await snapshot(other.run.runId, other.approvalId);

    // Act
    const { response } = await postWithState(s, () => otherForm.state!);

    // Assess
    expect(response.status).toBe(200);
    expect(ignoredStates(s)).toEqual([expect.objectContaining({ reason: 'bad_seal' })]);
    expect(await store.getApproval(s.approvalId)).toMatchObject({ status: 'approved' });
    expect(await snapshot(other.run.runId, other.approvalId)).toEqual(untouched);
  });

  it("another render's state (bound to another nonce): ignored", async () => {
    // Prepare
    const s = await approvalScenario(wire);
    const earlier = await formOn(s.app, s);

    // Act
    const { response, sent } = await postWithState(s, () => earlier.state!);

    // Assess
    expect(response.status).toBe(200);
    expect(sent[0]).toBe('GetItem');
    expect(ignoredStates(s)).toEqual([expect.objectContaining({ reason: 'bad_seal' })]);
  });

  it.each([
    ['garbage', () => 'garbage', 'malformed'],
    ['too long', () => 'a'.repeat(30_000), 'too_long'],
  ])('a %s state: ignored (%s)', async (_name, state, reason) => {
    // Prepare
    const s = await approvalScenario(wire);

    // Act
    const { response } = await postWithState(s, state);

    // Assess
    expect(response.status).toBe(200);
    expect(ignoredStates(s)).toEqual([expect.objectContaining({ reason })]);
    expect(await store.getApproval(s.approvalId)).toMatchObject({ status: 'approved' });
  });
});
