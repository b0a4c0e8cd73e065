/**
 * Operator controls of a graph run on the local stack, through the API and through `wf run steps | pause |
 * resume | retry-step` (docs/cli.md):
 * - retry: the refund fails (payments answer 503), the run fails; retrying the step re-runs only it (the
 *   triage child run is not run again), in attempt 2, and the run completes with one refund, its final head
 *   anchored again;
 * - pause/resume: paused while the manager reviews, the review finishes but the refund does not start; the
 *   execution waits (AwaitResume) until resume, then the run completes;
 * - cancel: a run waiting on its human task is cancelled: the step is `cancelled`, the task closed;
 * - owner fencing: another owner's run id answers 404, as a missing one.
 */
import { beforeAll, describe, expect, it } from 'vitest';
import { ApiClient, ApiError } from '../../shared/cli/client.ts';
import type { Run } from '../../shared/schemas/run.ts';
import { wf } from '../cli/support.ts';
import {
  type AuditView,
  applyWorkflowText,
  type E2eStack,
  eventually,
  getRun,
  runEnded,
} from '../e2e/support.ts';
import { graphStackForSuite } from '../support/graph-stack.ts';
import { missingRunId } from '../support/store.ts';
import { refundGraph, startRefund, stepsOf } from './support.ts';

const KEY_A = 'wf_test_key_team_a_0123456789abcdef';

type OwnerAudit = { anchors: { entries: { runId: string }[]; verification: { ok: boolean } } };
const KEY_B = 'wf_test_key_team_b_0123456789abcdef';

/** The HTTP status of a request (the client throws on non-2xx). */
async function statusOf(client: ApiClient, path: string): Promise<number> {
  try {
    return (await client.request('POST', path, { body: '{}' })).status;
  } catch (error) {
    if (error instanceof ApiError) return error.status;
    throw error;
  }
}

describe('graph run operations on the local stack', () => {
  const graph = graphStackForSuite({
    apiKeys: { [KEY_A]: { owner: 'team-a' }, [KEY_B]: { owner: 'team-b' } },
  });
  let e2e: E2eStack;
  let small: string;
  let large: string;

  beforeAll(async () => {
    const started = graph.e2e;
    e2e = { ...started, client: new ApiClient(started.stack.url, { kind: 'api-key', apiKey: KEY_A }) };
    const { url } = graph.payments;
    small = await applyWorkflowText(e2e, 'refund-request', refundGraph('refund-request', url));
    large = await applyWorkflowText(e2e, 'refund-large', refundGraph('refund-large', url));
  });

  const post = async (path: string) => (await e2e.client.post<{ run: Run }>(path, {})).body.run;
  /** `wf` as team A, against this stack. */
  const cli = (...argv: string[]) => wf([...argv, '--url', e2e.stack.url, '--api-key', KEY_A]);
  const anchoredAudit = (runId: string) =>
    e2e.client.get<AuditView & { anchored: boolean }>(`/v1/runs/${runId}/audit`);
  const paid = (customerId: string) =>
    graph.payments.refunds.filter((refund) => refund.customerId === customerId);

  it('retrying a failed step re-runs only that step', async () => {
    graph.payments.failNext(1);
    const runId = await startRefund(e2e, small, 'Order 1: the vase arrived broken. Customer c_17.');
    const failed = await runEnded(e2e, runId, 30_000);
    expect(failed.status).toBe('failed');
    expect(failed.error?.message).toContain('issue_refund');
    const before = await stepsOf(e2e, runId);
    expect(before.issue_refund).toMatchObject({ status: 'failed', attempt: 1 });
    expect(before.draft_reply).toBeUndefined();
    const shown = await cli('run', 'steps', runId);
    expect(shown.code).toBe(0);
    expect(shown.lines[0]).toBe(`${runId}: ${Object.keys(before).length} step(s) started`);
    expect(shown.lines).toContainEqual(
      expect.stringMatching(/^ {2}issue_refund {13}failed {5}attempt 1 {2}\S/),
    );

    const reopened = await cli('run', 'retry-step', runId, 'issue_refund');
    expect(reopened).toMatchObject({ code: 0, stdout: `${runId}: step issue_refund retried; now running` });
    const run = await runEnded(e2e, runId, 30_000);
    const after = await stepsOf(e2e, runId);
    expect(run.status).toBe('done');
    expect(after.issue_refund).toMatchObject({ status: 'succeeded', attempt: 2 });
    // Only that step ran again: the triage step kept its one attempt and its one child run.
    expect(after.triage).toMatchObject({ attempt: 1, childRunId: before.triage?.childRunId });
    expect(after.draft_reply?.status).toBe('succeeded');
    expect(paid('c_17')).toHaveLength(1);
    // Anchored when it failed, and again at its final head once the retried run ended; the owner chain holds both.
    await eventually('the final head anchored', async () =>
      (await anchoredAudit(runId)).anchored ? true : undefined,
    );
    expect((await anchoredAudit(runId)).verification.ok).toBe(true);
    const owner = await e2e.client.get<OwnerAudit>('/v1/audit');
    expect(owner.anchors.verification.ok).toBe(true);
    expect(owner.anchors.entries.filter((anchor) => anchor.runId === runId)).toHaveLength(2);
  });

  it('retrying a step that did not fail is refused with 409 and changes nothing', async () => {
    const runId = await startRefund(e2e, small, 'Order 1: the vase arrived broken. Customer c_17.');
    await runEnded(e2e, runId, 30_000);
    expect(await statusOf(e2e.client, `/v1/runs/${runId}/steps/triage/retry`)).toBe(409);
    expect((await getRun(e2e, runId)).status).toBe('done');
  });

  it('pause stops new steps (running ones finish); resume goes on', async () => {
    const before = paid('c_88').length;
    const runId = await startRefund(e2e, large, 'My order never arrived. Customer c_88.');
    await eventually('the manager review', async () => e2e.stack.humanTasks.find(runId, 'manager_review'));
    const paused = await cli('run', 'pause', runId);
    expect(paused).toMatchObject({ code: 0, stdout: `${runId}: paused; now running (paused)` });
    expect((await getRun(e2e, runId)).paused).toBe(true);
    await e2e.stack.humanTasks.submit(runId, 'manager_review', { approve: true });
    // The review (already running) finishes; the execution then waits for a resume instead of refunding.
    await eventually('the execution to wait for a resume', async () =>
      (await e2e.stack.store.getResumeToken(runId)) ? true : undefined,
    );
    const steps = await stepsOf(e2e, runId);
    expect(steps.manager_review?.status).toBe('succeeded');
    expect(steps.issue_refund).toBeUndefined();
    expect(paid('c_88').length).toBe(before);

    const resumed = await cli('run', 'resume', runId);
    expect(resumed).toMatchObject({ code: 0, stdout: `${runId}: resumed; now running` });
    const run = await runEnded(e2e, runId, 30_000);
    expect(run.status).toBe('done');
    expect(run.paused).toBeUndefined();
    expect(paid('c_88').length).toBe(before + 1);
    // Not paused: invalid_state (HTTP 409), exit 1.
    const again = await cli('run', 'resume', runId);
    expect([again.code, again.stderr]).toEqual([1, expect.stringMatching(/\(invalid_state, HTTP 409\)$/)]);
  });

  it('cancel closes the waiting human task and cancels the step', async () => {
    const runId = await startRefund(e2e, large, 'My order never arrived. Customer c_88.');
    await eventually('the manager review', async () => e2e.stack.humanTasks.find(runId, 'manager_review'));
    const cancelled = await post(`/v1/runs/${runId}/cancel`);
    expect(cancelled.status).toBe('cancelled');
    const run = await runEnded(e2e, runId, 30_000);
    expect(run.status).toBe('cancelled');
    expect((await stepsOf(e2e, runId)).manager_review?.status).toBe('cancelled');
    expect(e2e.stack.humanTasks.find(runId, 'manager_review')).toBeUndefined();
    // The steps were recorded cancelled after the run ended: its final head is the one anchored.
    expect(await anchoredAudit(runId)).toMatchObject({ verification: { ok: true }, anchored: true });
  });

  it("another owner's run is a 404 for every operation, like a missing one", async () => {
    const runId = await startRefund(e2e, small, 'Order 1: the vase arrived broken. Customer c_17.');
    await runEnded(e2e, runId, 30_000);
    const teamB = new ApiClient(e2e.stack.url, { kind: 'api-key', apiKey: KEY_B });
    for (const path of ['pause', 'resume', 'steps/issue_refund/retry', 'cancel']) {
      expect(await statusOf(teamB, `/v1/runs/${missingRunId()}/${path}`)).toBe(404);
      expect(await statusOf(teamB, `/v1/runs/${runId}/${path}`)).toBe(404);
    }
    expect(await statusOf(e2e.client, `/v1/runs/${runId}/pause`)).toBe(409);
  });
});
