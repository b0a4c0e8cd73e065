/**
 * Approval timeout end to end, without waiting a minute. The stack runs on a FixedClock (the engine, approval
 * expiry, links and nonces read it); Step Functions' wait timer is real time. In the gated turn the model also
 * calls `fetch_url` on a slow report server: while it "works", the runtime's clock moves 58 s of the 60 s
 * approval window. So the Turn parks with 2 s left and computes `approvalTimeoutSeconds` = 2; the approver gets a
 * live link and opens the page, then lets the window pass (the test moves the clock 3 s on) without deciding.
 * The real 2 s timer sends the execution through States.Timeout → Expire → Turn, the path a 60 s wait takes on AWS.
 */
import { createServer, type Server } from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { approvalPostUrl, issueFormNonce, signApprovalLink } from '../../shared/approvals/index.ts';
import { FixedClock } from '../support/store.ts';
import {
  APPROVER,
  applyWorkflowText,
  awaitingApproval,
  createOwnTable,
  type E2eStack,
  executionsOf,
  gatedNotesWorkflow,
  getAudit,
  getRun,
  hiddenFields,
  noteLines,
  openPage,
  type PageForm,
  postForm,
  removeDir,
  runEnded,
  snapshot,
  startE2eStack,
  startRun,
  tempDataDir,
  toolResultFor,
  withToken,
} from './support.ts';

/** Runtime time the report takes: the approval window (60 s) less 2 s. */
const REPORT_TAKES_MS = 58_000;
const clock = new FixedClock(new Date().toISOString());

/** A report server whose one page takes 58 s of the runtime's time to produce. */
let reportServer: Server;
let reportPort: number;
let reportRequests = 0;

let e2e: E2eStack;
let dataDir: string;
let workflowId: string;

beforeAll(async () => {
  reportServer = createServer((request, response) => {
    reportRequests += 1;
    clock.advance(REPORT_TAKES_MS);
    response
      .writeHead(request.url === '/report' ? 200 : 404, { 'content-type': 'text/plain' })
      .end('report ready');
  });
  await new Promise<void>((resolve) => reportServer.listen(0, '127.0.0.1', resolve));
  reportPort = (reportServer.address() as { port: number }).port;
  dataDir = await tempDataDir();
  e2e = await startE2eStack(await createOwnTable(), {
    dataDir,
    clock,
    allowLoopbackPorts: [reportPort],
    fixtures: [
      {
        name: 'e2e-timeout',
        turns: [
          {
            response: {
              content: [
                { type: 'text', text: 'I will record the line and read the report.' },
                { type: 'tool_use', name: 'notes_append', input: { name: 'log', line: 'late line' } },
                {
                  type: 'tool_use',
                  name: 'fetch_url',
                  input: { url: `http://127.0.0.1:${reportPort}/report` },
                },
              ],
            },
          },
          {
            expect: {
              toolResults: [
                {
                  toolName: 'notes_append',
                  contains: 'no human decided before the approval timed out',
                  isError: true,
                },
                { toolName: 'fetch_url', contains: 'report ready', isError: false },
              ],
            },
            text: 'Nobody approved in time, so nothing was recorded.',
          },
        ],
      },
    ],
  });
  workflowId = await applyWorkflowText(e2e, 'e2e-timeout', gatedNotesWorkflow('e2e-timeout', ['fetch_url']));
});

afterAll(async () => {
  await e2e?.stack.stop();
  await new Promise((resolve) => reportServer?.close(resolve));
  await removeDir(dataDir);
});

describe('Approval timeout (no decision)', () => {
  let runId: string;
  let approvalId: string;
  let link: string;
  let form: PageForm;
  let startedAt: number;
  let windowLeftMs: number;
  let realWaitMs: number;

  beforeAll(async () => {
    startedAt = Date.now();
    runId = await startRun(e2e, workflowId);
    const waiting = await awaitingApproval(e2e, runId);
    const parkedAt = Date.now();
    approvalId = waiting.approval.approvalId;
    link = waiting.link;
    windowLeftMs = Date.parse(waiting.approval.expiresAt) - clock.nowMs();
    // The approver opens the page (the link is live) and walks away; 3 s later the window has closed.
    form = await openPage(link);
    clock.advance(3_000);
    await runEnded(e2e, runId, 20_000);
    realWaitMs = Date.now() - parkedAt;
  });

  it('expires the approval through Expire, tells the model no human decided, never runs the action, and ends denied (degraded)', async () => {
    // Prepare
    const [execution] = await executionsOf(e2e, runId);

    // Act
    const run = await getRun(e2e, runId);
    const approval = await e2e.stack.store.getApproval(approvalId);
    const audit = await getAudit(e2e, runId);

    // Assess
    expect(windowLeftMs).toBe(2_000);
    // The real Step Functions timer (2 s) ended the wait, not a decision; no minute was waited.
    expect(realWaitMs).toBeGreaterThanOrEqual(1_500);
    expect(Date.now() - startedAt).toBeLessThan(15_000);
    expect(reportRequests).toBe(1);
    expect(run).toMatchObject({
      status: 'denied',
      stopReason: 'end_turn',
      modelCalls: 2,
      result: { text: 'Nobody approved in time, so nothing was recorded.' },
      degraded: { count: 1, refused: [{ tool: 'notes_append' }] },
    });
    expect(run.degraded?.refused[0]?.reason).toContain('no human decided');
    expect(run.error).toBeUndefined();
    expect(approval).toMatchObject({ status: 'expired' });
    expect(approval?.decidedBy).toBeUndefined();
    expect(await noteLines(e2e, runId)).toEqual([]);
    expect(await toolResultFor(e2e, runId, 'notes_append')).toEqual({
      content: expect.stringContaining('no human decided before the approval timed out'),
      isError: true,
    });
    // Expire's entry (it names the expiry; the Turn's own fail-closed path does not), and no decision.
    expect(audit.entries.filter((entry) => entry.type === 'approval_expired')).toEqual([
      expect.objectContaining({
        actor: 'system',
        data: expect.objectContaining({ approvalId, expiresAt: approval?.expiresAt }),
      }),
    ]);
    expect(audit.entries.filter((entry) => entry.type === 'approval_notified')).toHaveLength(1);
    expect(audit.entries.some((entry) => entry.type === 'approval_decided')).toBe(false);
    expect(audit.verification.ok).toBe(true);
    // Turn, Route, RequestApproval, Expire, Turn, Route, Deliver (which ends the execution).
    expect(e2e.stack.sfn.stateTransitions(execution!.executionArn)).toBe(7);
  });

  it('refuses a late POST of the page form (and a fresh link for the expired approval) with 410, changing nothing', async () => {
    // Prepare: besides the approver's own form, a validly signed link that has not expired, and a fresh nonce.
    const approval = (await e2e.stack.store.getApproval(approvalId))!;
    const fresh = signApprovalLink(
      { approvalId, approver: APPROVER, argsHash: approval.argsHash, expiresAtMs: clock.nowMs() + 3_600_000 },
      e2e.keyring,
    );
    const nonce = issueFormNonce({ approvalId, approver: APPROVER, nowMs: clock.nowMs() }, e2e.keyring);
    const before = await snapshot(e2e, runId, approvalId);

    // Act
    const latePost = await postForm(form.action, { ...hiddenFields(form), decision: 'approve' });
    const lateGet = await fetch(link);
    const freshGet = await fetch(withToken(link, fresh));
    const freshPost = await postForm(approvalPostUrl(e2e.stack.url, approvalId), {
      t: fresh,
      nonce,
      decision: 'approve',
    });
    const after = await snapshot(e2e, runId, approvalId);

    // Assess
    expect([latePost.status, lateGet.status, freshGet.status, freshPost.status]).toEqual([
      410, 410, 410, 410,
    ]);
    expect(latePost.page).toContain('Link expired');
    expect(freshPost.page).toContain('Approval expired');
    expect(after).toEqual(before);
    expect(await noteLines(e2e, runId)).toEqual([]);
  });
});
