/**
 * The human-task pages over HTTP (the Hono app on DynamoDB Local): GET renders the form from its JSON Schema
 * and the run context and writes nothing; POST validates server-side and re-renders with field errors; the first
 * valid submission wins; replays, forged, foreign, expired or cross-site requests change nothing and say why.
 */
import { describe, expect, it } from 'vitest';
import { APPROVAL_PAGE_HEADERS, signSubjectLink } from '../../shared/approvals/index.ts';
import { humanTaskExpiry } from '../../shared/human-tasks/expiry.ts';
import { closeHumanTasks, createHumanTaskApp } from '../../shared/human-tasks/index.ts';
import { TASK_TITLES } from '../../shared/human-tasks/results.ts';
import { useSfnWire } from '../approvals-http/sfn-wire.ts';
import { headingOf, nonceOf, OTHER_KEYRING } from '../approvals-http/support.ts';
import { DEPUTY, keyring, MANAGER, PUBLIC_BASE, store, taskScenario } from './support.ts';

const wire = useSfnWire();

async function scenario() {
  const s = await taskScenario(wire);
  const app = createHumanTaskApp(s.deps);
  const open = async (assignee = MANAGER) => {
    const link = s.linkOf(assignee);
    const response = await app.request(link.path);
    return { response, html: await response.text(), link };
  };
  const post = (fields: Record<string, string> | [string, string][], headers: Record<string, string> = {}) =>
    app.request(`/human-tasks/${s.taskId}`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded', ...headers },
      body: new URLSearchParams(fields).toString(),
    });
  /** Opens the page and posts `values` (by field name) with its own token and nonce. */
  const submit = async (values: Record<string, string>, assignee = MANAGER) => {
    const { html, link } = await open(assignee);
    const fields: Record<string, string> = { t: link.token, nonce: nonceOf(html) };
    for (const [name, value] of Object.entries(values)) fields[`f.${name}`] = value;
    const response = await post(fields);
    return { response, html: await response.text() };
  };
  const snapshot = async () => ({
    task: await store.getHumanTask(s.taskId),
    auditCount: (await store.listAudit(s.run.runId)).length,
  });
  return { ...s, app, open, post, submit, snapshot };
}

const VALID = {
  decision: '0',
  reference: 'R-100',
  note: 'line one\nline two',
  amount: '12.5',
  copies: '2',
  urgent: 'true',
};

describe('GET /human-tasks/:id', () => {
  it('renders every field kind, the run context (escaped) and the page headers; writes nothing', async () => {
    const s = await scenario();
    const before = await s.snapshot();
    const { response, html } = await s.open();
    expect(response.status).toBe(200);
    for (const [name, value] of Object.entries(APPROVAL_PAGE_HEADERS))
      expect(response.headers.get(name)).toBe(value);
    expect(headingOf(html)).toBe('Manager review &lt;refund&gt;');
    // Whose form it is: an assignee serving several owners must tell one owner's task from another's.
    expect(html).toContain(`<dt>Owner (who asks)</dt><dd id="owner"><code>${s.run.owner}</code></dd>`);
    expect(html).toContain('<select id="f-decision" name="f.decision" required>');
    expect(html).toContain('<option value="0">approve</option><option value="1">reject</option>');
    expect(html).toMatch(/<textarea id="f-note" name="f.note" maxlength="500">/);
    expect(html).toMatch(
      /<input type="text" id="f-reference" name="f.reference" required minlength="3" maxlength="20"/,
    );
    expect(html).toMatch(/<input type="number" step="any" id="f-amount" name="f.amount" min="0"/);
    expect(html).toMatch(/<input type="number" step="1" id="f-copies" name="f.copies" min="1" max="5"/);
    expect(html).toContain('<input type="checkbox" id="f-urgent" name="f.urgent" value="true">');
    // A field's default is what the control first shows.
    expect(html).toMatch(/id="f-copies" name="f.copies" min="1" max="5" value="1">/);
    expect(html).toContain('Please refund my order &lt;#42&gt; &amp; thanks');
    expect(html).toContain('<code>steps.triage.output.amount</code>');
    expect(html).not.toContain(s.taskToken);
    expect(html).not.toContain('<script');
    expect(await s.snapshot()).toEqual(before);
  });

  it("renders the fields in the form's x-order, then the rest by name", async () => {
    const s = await scenario();
    const { html } = await s.open();
    const order = [...html.matchAll(/data-field="([^"]+)"/g)].map((match) => match[1]);
    expect(order).toEqual(['decision', 'reference', 'note', 'amount', 'copies', 'urgent']);
  });

  it('issues a fresh nonce per render', async () => {
    const s = await scenario();
    const a = nonceOf((await s.open()).html);
    const b = nonceOf((await s.open()).html);
    expect(a).not.toBe(b);
  });

  it('refuses forged, foreign-key, other-task and expired links before any read', async () => {
    const s = await scenario();
    const task = (await store.getHumanTask(s.taskId))!;
    const claims = {
      id: s.taskId,
      holder: MANAGER,
      expiresAtMs: Date.parse(task.expiresAt),
      hash: task.formHash,
    };
    const forged = signSubjectLink('human_task', claims, OTHER_KEYRING);
    const otherTask = signSubjectLink('human_task', { ...claims, id: 'htk_abcdefgh_review_1' }, keyring);
    const otherForm = signSubjectLink('human_task', { ...claims, hash: 'a'.repeat(64) }, keyring);
    const stranger = signSubjectLink('human_task', { ...claims, holder: 'mallory@example.com' }, keyring);
    for (const t of [forged, otherTask, otherForm, stranger, 'garbage']) {
      const response = await s.app.request(`/human-tasks/${s.taskId}?t=${encodeURIComponent(t)}`);
      expect(response.status).toBe(403);
      expect(headingOf(await response.text())).toBe(TASK_TITLES.invalidLink);
    }
    s.clock.advance(600_000);
    const expired = await s.app.request(s.linkOf(MANAGER).path);
    expect(expired.status).toBe(410);
    expect(headingOf(await expired.text())).toBe(TASK_TITLES.expiredLink);
  });
});

describe('POST /human-tasks/:id', () => {
  it('records a valid submission with typed values and resumes the run', async () => {
    const s = await scenario();
    wire.reset();
    const { response, html } = await s.submit(VALID, DEPUTY);
    expect(response.status).toBe(200);
    expect(headingOf(html)).toBe(TASK_TITLES.submitted);
    const output = {
      decision: 'approve',
      reference: 'R-100',
      note: 'line one\nline two',
      amount: 12.5,
      copies: 2,
      urgent: true,
    };
    expect(await store.getHumanTask(s.taskId)).toMatchObject({
      status: 'submitted',
      submittedBy: DEPUTY,
      submission: output,
    });
    expect(wire.calls).toHaveLength(1);
    expect(wire.calls[0]!.body.taskToken).toBe(s.taskToken);
    expect(JSON.parse(String(wire.calls[0]!.body.output))).toEqual({ output });
  });

  it('stores line breaks as the person typed them: the CRLF browsers post becomes LF', async () => {
    const s = await scenario();
    await s.submit({ decision: '0', reference: 'abc', note: 'one\r\ntwo\rthree' });
    expect((await store.getHumanTask(s.taskId))!.submission!.note).toBe('one\ntwo\nthree');
  });

  it('an unticked box is false and empty optional fields are left out', async () => {
    const s = await scenario();
    await s.submit({ decision: '1', reference: 'abc' });
    expect((await store.getHumanTask(s.taskId))!.submission).toEqual({
      decision: 'reject',
      reference: 'abc',
      urgent: false,
    });
  });

  it('answers field errors by re-rendering the form with what was posted; nothing is recorded', async () => {
    const s = await scenario();
    const before = await s.snapshot();
    const { response, html } = await s.submit({
      decision: '7',
      reference: 'ab',
      amount: 'lots',
      copies: '9',
      note: 'kept <text>',
    });
    expect(response.status).toBe(422);
    expect(html).toContain('Nothing was submitted: 4 fields need correcting.');
    expect(html).toContain('<p class="error" id="e-decision">must be one of the listed options</p>');
    expect(html).toContain('<p class="error" id="e-reference">must NOT have fewer than 3 characters</p>');
    expect(html).toContain('<p class="error" id="e-amount">must be a number</p>');
    expect(html).toContain('<p class="error" id="e-copies">must be &lt;= 5</p>');
    expect(html).toContain('>kept &lt;text&gt;</textarea>');
    expect(html).toContain('value="ab"');
    expect(await s.snapshot()).toEqual(before);
    // The re-rendered form carries a fresh nonce and submits.
    const fixed = await s.post({
      t: s.linkOf(MANAGER).token,
      nonce: nonceOf(html),
      'f.decision': '0',
      'f.reference': 'abc',
    });
    expect(fixed.status).toBe(200);
  });

  it.each([
    ['1e20', 'is too large to store exactly'],
    ['1e-200', 'is too small to store'],
  ])(
    'a number DynamoDB cannot store (%s) is a field error, not a 500; nothing is recorded',
    async (amount, message) => {
      const s = await scenario();
      const before = await s.snapshot();
      const { response, html } = await s.submit({ decision: '0', reference: 'abc', amount });
      expect(response.status).toBe(422);
      expect(html).toContain(`<p class="error" id="e-amount">${message}`);
      expect(await s.snapshot()).toEqual(before);
    },
  );

  it('a missing required field is named', async () => {
    const s = await scenario();
    const { response, html } = await s.submit({ decision: '0' });
    expect(response.status).toBe(422);
    expect(html).toContain('<p class="error" id="e-reference">is required</p>');
  });

  it('is single use: a second submission, or a replay of the first, answers 409 naming who and when', async () => {
    const s = await scenario();
    const { html: page } = await s.open(DEPUTY);
    const first = await s.open(MANAGER);
    const firstFields = {
      t: first.link.token,
      nonce: nonceOf(first.html),
      'f.decision': '0',
      'f.reference': 'abc',
    };
    expect((await s.post(firstFields)).status).toBe(200);
    const after = await s.snapshot();
    wire.reset();
    const second = await s.post({
      t: s.linkOf(DEPUTY).token,
      nonce: nonceOf(page),
      'f.decision': '1',
      'f.reference': 'xyz',
    });
    expect(second.status).toBe(409);
    const text = await second.text();
    expect(headingOf(text)).toBe(TASK_TITLES.alreadySubmitted);
    expect(text).toContain(`already submitted by ${MANAGER} at 2026-11-30 07:00:00 UTC`);
    const replay = await s.post(firstFields);
    expect(replay.status).toBe(409);
    expect(headingOf(await (await s.app.request(s.linkOf(MANAGER).path)).text())).toBe(
      TASK_TITLES.alreadySubmitted,
    );
    expect(await s.snapshot()).toEqual(after);
    expect(wire.calls).toEqual([]);
  });

  it('refuses a nonce for another assignee, a missing nonce, a repeated token and a cross-site post', async () => {
    const s = await scenario();
    const before = await s.snapshot();
    const deputyNonce = nonceOf((await s.open(DEPUTY)).html);
    const token = s.linkOf(MANAGER).token;
    const foreign = await s.post({ t: token, nonce: deputyNonce, 'f.decision': '0', 'f.reference': 'abc' });
    expect(foreign.status).toBe(403);
    expect((await s.post({ t: token, 'f.decision': '0' })).status).toBe(400);
    expect(
      (
        await s.post([
          ['t', token],
          ['t', token],
          ['nonce', deputyNonce],
        ])
      ).status,
    ).toBe(400);
    const crossSite = await s.post(
      { t: token, nonce: deputyNonce },
      { origin: 'https://evil.example', 'sec-fetch-site': 'cross-site' },
    );
    expect(crossSite.status).toBe(403);
    expect(headingOf(await crossSite.text())).toBe(TASK_TITLES.crossSite);
    expect(await s.snapshot()).toEqual(before);
  });

  it('after expiry (by the clock) and after closing, says so and records nothing', async () => {
    const s = await scenario();
    const { html } = await s.open();
    const token = s.linkOf(MANAGER).token;
    await closeHumanTasks(s.deps, { runId: s.run.runId, reason: 'run_cancelled' });
    const closed = await s.post({ t: token, nonce: nonceOf(html), 'f.decision': '0', 'f.reference': 'abc' });
    expect(closed.status).toBe(410);
    const text = await closed.text();
    expect(headingOf(text)).toBe(TASK_TITLES.closed);
    expect(text).toContain('its run was cancelled');
    const page = await s.open();
    expect(headingOf(page.html)).toBe(TASK_TITLES.closed);

    const t = await scenario();
    const open = await t.open();
    t.clock.advance(599_000);
    // The link is still valid for a second, the task record not yet expired: the clock decides (fail closed).
    const task = (await store.getHumanTask(t.taskId))!;
    await store.commit({
      run: (await store.getRun(t.run.runId))!,
      next: (await store.getRun(t.run.runId))!,
      humanTaskPut: [
        { task: { ...task, expiresAt: new Date(t.clock.nowMs()).toISOString() }, expectedStatus: 'open' },
      ],
    });
    const late = await t.post({
      t: t.linkOf(MANAGER).token,
      nonce: nonceOf(open.html),
      'f.decision': '0',
      'f.reference': 'abc',
    });
    expect(late.status).toBe(410);
    expect(headingOf(await late.text())).toBe(TASK_TITLES.expired);
  });

  // closeFailedWaitTask's two callers: a step's wait failing (its error name), a graph run failing.
  it.each(['States.TaskFailed', 'the graph run failed'])(
    'closed because its wait failed (%s): says the run stopped waiting, without the error',
    async (error) => {
      const s = await scenario();
      const { html } = await s.open();
      await humanTaskExpiry(s.deps).closeFailed({ runId: s.run.runId, stepId: 'review', attempt: 1 }, error);
      expect(await store.getHumanTask(s.taskId)).toMatchObject({
        status: 'closed',
        closedReason: `wait_failed: ${error}`,
      });
      const before = await s.snapshot();
      const posted = await s.post({
        t: s.linkOf(MANAGER).token,
        nonce: nonceOf(html),
        'f.decision': '0',
        'f.reference': 'abc',
      });
      const page = await s.open();
      for (const text of [await posted.text(), page.html]) {
        expect(headingOf(text)).toBe(TASK_TITLES.closed);
        expect(text).toContain('This task was closed because the run stopped waiting for an answer.');
        expect(text).not.toContain('withdrawn');
        expect(text).not.toContain(error);
      }
      expect(posted.status).toBe(410);
      expect(page.response.status).toBe(410);
      expect(await s.snapshot()).toEqual(before);
    },
  );

  it('a form field cannot be called t or nonce: inputs are prefixed', async () => {
    const s = await scenario();
    const { html } = await s.open();
    expect(html.match(/name="t"/g)).toHaveLength(1);
    expect(html.match(/name="nonce"/g)).toHaveLength(1);
    expect(PUBLIC_BASE).toBe('http://127.0.0.1:8787');
  });
});
