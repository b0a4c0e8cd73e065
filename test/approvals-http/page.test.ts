import { describe, expect, it } from 'vitest';
import { APPROVAL_PAGE_HEADERS, RESULT_TITLES, signApprovalLink } from '../../shared/approvals/index.ts';
import { createApprovalApp } from '../../shared/approvals-http/app.ts';
import { sfnTaskTokens } from '../../shared/approvals-http/task-tokens.ts';
import { decideApproval, expireApprovals } from '../../shared/core/approval-ops.ts';
import type { RunStore } from '../../shared/core/store-port.ts';
import { useSfnWire } from './sfn-wire.ts';
import {
  ARGS,
  approvalScenario,
  BOSS,
  headingOf,
  keyring,
  OTHER_KEYRING,
  REASON,
  type Scenario,
  snapshot,
  store,
  unescapeHtml,
} from './support.ts';

const wire = useSfnWire();

const argsOnPage = (html: string) =>
  JSON.parse(unescapeHtml(/<pre id="args">([\s\S]*?)<\/pre>/.exec(html)![1]!));

function expectPageHeaders(response: Response) {
  for (const [name, value] of Object.entries(APPROVAL_PAGE_HEADERS))
    expect(response.headers.get(name)).toBe(value);
}

describe('GET /approvals/:approvalId', () => {
  it('renders the exact arguments, the unverified reason, workflow, run, approver and expiry', async () => {
    const s = await approvalScenario(wire);

    const response = await s.app.request(s.linkOf(BOSS).path);
    const html = await response.text();

    expect(response.status).toBe(200);
    expectPageHeaders(response);
    expect(argsOnPage(html)).toEqual(ARGS);
    expect(html).toContain('ship &lt;v2&gt; &amp;');
    expect(html).toContain(`<blockquote>${REASON.replace('<', '&lt;').replace('>', '&gt;')}</blockquote>`);
    expect(html).toContain('Written by the model, not verified.');
    expect(html).toContain('release-notes');
    expect(html).toContain(s.run.workflowId);
    expect(html).toContain(`version ${s.run.workflowVersion}`);
    expect(html).toContain(s.run.runId);
    expect(html).toContain(BOSS);
    expect(html).toContain(`datetime="${s.approval.expiresAt}"`);
    expect(html).toContain('Append one line to a run note.');
    // The form names the run, so the decision reads the approval and its run in one request.
    expect(html).toContain(`action="http://127.0.0.1:8787/approvals/${s.approvalId}?run=${s.run.runId}"`);
  });

  it('changes nothing: the approval, the run and its audit chain are the same after GET and HEAD', async () => {
    const s = await approvalScenario(wire);
    const before = await snapshot(s.run.runId, s.approvalId);

    const get = await s.app.request(s.linkOf(BOSS).path);
    const head = await s.app.request(s.linkOf(BOSS).path, { method: 'HEAD' });

    expect(get.status).toBe(200);
    expect(head.status).toBe(200);
    expectPageHeaders(head);
    expect(await head.text()).toBe('');
    expect(await snapshot(s.run.runId, s.approvalId)).toEqual(before);
    expect(wire.calls).toEqual([]);
  });

  it('issues a fresh form nonce on every render', async () => {
    const s = await approvalScenario(wire);

    const first = await (await s.app.request(s.linkOf(BOSS).path)).text();
    const second = await (await s.app.request(s.linkOf(BOSS).path)).text();

    const nonce = (html: string) => /name="nonce" value="([^"]+)"/.exec(html)![1];
    expect(nonce(first)).not.toBe(nonce(second));
  });

  it('has no script and nothing that submits by itself', async () => {
    const s = await approvalScenario(wire);

    const html = await (await s.app.request(s.linkOf(BOSS).path)).text();

    expect(html).not.toMatch(/<script|javascript:|\son[a-z]+=|http-equiv="refresh"|autofocus/i);
    expect(html.match(/<form /g)).toHaveLength(1);
    expect(html).toContain('<form method="post"');
  });

  type BadLink = [string, (s: Scenario) => string, number, string];
  it.each<BadLink>([
    ['no token', (s) => `/approvals/${s.approvalId}`, 403, RESULT_TITLES.invalid_link],
    ['a garbled token', (s) => `/approvals/${s.approvalId}?t=not.a-token`, 403, RESULT_TITLES.invalid_link],
    [
      'a forged signature',
      (s) =>
        `/approvals/${s.approvalId}?t=${signApprovalLink(
          {
            approvalId: s.approvalId,
            approver: BOSS,
            expiresAtMs: Date.parse(s.approval.expiresAt),
            argsHash: s.approval.argsHash,
          },
          OTHER_KEYRING,
        )}`,
      403,
      RESULT_TITLES.invalid_link,
    ],
    [
      'a token for another approval',
      (s) => `/approvals/apr_someoneelse0000?t=${s.linkOf(BOSS).token}`,
      403,
      RESULT_TITLES.invalid_link,
    ],
    [
      'a valid link for an approval that does not exist',
      (s) =>
        `/approvals/apr_doesnotexist0000?t=${signApprovalLink(
          {
            approvalId: 'apr_doesnotexist0000',
            approver: BOSS,
            expiresAtMs: Date.parse(s.approval.expiresAt),
            argsHash: s.approval.argsHash,
          },
          keyring,
        )}`,
      404,
      RESULT_TITLES.unknown_approval,
    ],
    [
      'a link for someone who is not an approver',
      (s) =>
        `/approvals/${s.approvalId}?t=${signApprovalLink(
          {
            approvalId: s.approvalId,
            approver: 'mallory@example.com',
            expiresAtMs: Date.parse(s.approval.expiresAt),
            argsHash: s.approval.argsHash,
          },
          keyring,
        )}`,
      403,
      RESULT_TITLES.invalid_link,
    ],
    [
      'a link bound to other arguments',
      (s) =>
        `/approvals/${s.approvalId}?t=${signApprovalLink(
          {
            approvalId: s.approvalId,
            approver: BOSS,
            expiresAtMs: Date.parse(s.approval.expiresAt),
            argsHash: 'a'.repeat(64),
          },
          keyring,
        )}`,
      403,
      RESULT_TITLES.invalid_link,
    ],
  ])('refuses %s with a clear page and changes nothing', async (_name, path, status, title) => {
    const s = await approvalScenario(wire);
    const before = await snapshot(s.run.runId, s.approvalId);

    const response = await s.app.request(path(s));
    const html = await response.text();

    expect(response.status).toBe(status);
    expectPageHeaders(response);
    expect(headingOf(html)).toBe(title);
    expect(html).not.toContain('<form');
    expect(await snapshot(s.run.runId, s.approvalId)).toEqual(before);
  });

  it('answers 410 for an expired link', async () => {
    const s = await approvalScenario(wire);
    s.clock.advance(601_000);
    const before = await snapshot(s.run.runId, s.approvalId);

    const response = await s.app.request(s.linkOf(BOSS).path);

    expect(response.status).toBe(410);
    expect(headingOf(await response.text())).toBe(RESULT_TITLES.expired_link);
    expect(await snapshot(s.run.runId, s.approvalId)).toEqual(before);
  });

  it('verifies the token before any read: forged, foreign and expired links touch no record', async () => {
    const s = await approvalScenario(wire);
    const reads: string[] = [];
    const counting = new Proxy(store as RunStore, {
      get(target, property, receiver) {
        const value = Reflect.get(target, property, receiver);
        if (typeof value !== 'function') return value;
        return (...args: unknown[]) => {
          reads.push(String(property));
          return (value as (...a: unknown[]) => unknown).apply(target, args);
        };
      },
    });
    const app = createApprovalApp({
      store: counting,
      clock: s.clock,
      keyring,
      taskTokens: sfnTaskTokens(wire.client),
      publicBaseUrl: 'http://127.0.0.1:8787',
      logger: s.logger,
    });
    const forged = signApprovalLink(
      {
        approvalId: s.approvalId,
        approver: BOSS,
        expiresAtMs: Date.parse(s.approval.expiresAt),
        argsHash: s.approval.argsHash,
      },
      OTHER_KEYRING,
    );

    const statuses = [
      (await app.request(`/approvals/${s.approvalId}?t=${forged}`)).status,
      (await app.request(`/approvals/apr_someoneelse0000?t=${s.linkOf(BOSS).token}`)).status,
    ];
    s.clock.advance(601_000);
    statuses.push((await app.request(s.linkOf(BOSS).path)).status);

    expect(statuses).toEqual([403, 403, 410]);
    expect(reads).toEqual([]);
    expect((await app.request(`/approvals/${s.approvalId}?t=${forged}`, { method: 'HEAD' })).status).toBe(
      403,
    );
  });

  it('shows "already decided" with 409 instead of the form once the approval is decided', async () => {
    const s = await approvalScenario(wire);
    await decideApproval(
      { store, clock: s.clock },
      { approvalId: s.approvalId, approver: BOSS, decision: 'denied' },
    );

    const response = await s.app.request(s.linkOf(BOSS).path);
    const html = await response.text();

    expect(response.status).toBe(409);
    expect(headingOf(html)).toBe(RESULT_TITLES.already_decided);
    expect(html).toContain(`denied by ${BOSS}`);
    expect(html).not.toContain('<form');
  });

  it('shows "approval expired" with 410 once the Expire step recorded it, even on a longer-lived link', async () => {
    const s = await approvalScenario(wire);
    s.clock.advance(601_000);
    await expireApprovals({ store, clock: s.clock }, s.run.runId);
    const longLived = signApprovalLink(
      {
        approvalId: s.approvalId,
        approver: BOSS,
        expiresAtMs: s.clock.nowMs() + 3_600_000,
        argsHash: s.approval.argsHash,
      },
      keyring,
    );

    const response = await s.app.request(`/approvals/${s.approvalId}?t=${longLived}`);

    expect(response.status).toBe(410);
    expect(headingOf(await response.text())).toBe(RESULT_TITLES.approval_expired);
  });

  it('verifies links signed with a previous key (rotation)', async () => {
    const s = await approvalScenario(wire);
    const oldKey = { current: keyring.previous![0]! };
    const token = signApprovalLink(
      {
        approvalId: s.approvalId,
        approver: BOSS,
        expiresAtMs: Date.parse(s.approval.expiresAt),
        argsHash: s.approval.argsHash,
      },
      oldKey,
    );

    const response = await s.app.request(`/approvals/${s.approvalId}?t=${token}`);

    expect(response.status).toBe(200);
  });

  it('answers other methods with 405 and other paths with 404, as pages', async () => {
    const s = await approvalScenario(wire);

    const put = await s.app.request(`/approvals/${s.approvalId}`, { method: 'PUT' });
    const other = await s.app.request('/approvals');

    expect(put.status).toBe(405);
    expect(put.headers.get('allow')).toBe('GET, HEAD, POST');
    expect(other.status).toBe(404);
    expectPageHeaders(other);
  });
});
