/**
 * Telemetry of an approval: the RequestApproval handler and the approval pages with the Powertools logger and
 * the observed store, as the AWS composition root wires them. Log lines name the approval, run and owner and
 * never a link token, form nonce, task token, signing secret or signed URL; the decision is counted in EMF.
 */
import { randomUUID } from 'node:crypto';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it, vi } from 'vitest';
import { createExpireHandler } from '../../functions/expire.ts';
import { createRequestApprovalHandler } from '../../functions/request-approval.ts';
import { createApprovalApp } from '../../shared/approvals-http/app.ts';
import { sfnTaskTokens } from '../../shared/approvals-http/task-tokens.ts';
import { inboxNotifier } from '../../shared/notify/index.ts';
import { observeStore } from '../../shared/runtime/observed-store.ts';
import { createTelemetry, withInvocation } from '../../shared/runtime/telemetry.ts';
import { telemetryObserver } from '../../shared/runtime/telemetry-observers.ts';
import { type SfnWire, startSfnWire } from '../approvals-http/sfn-wire.ts';
import { BOSS, keyring, nonceOf, PUBLIC_BASE, parkRun, postForm, store } from '../approvals-http/support.ts';
import { FixedClock } from '../support/store.ts';
import { type Captured, captureOutput } from './capture.ts';

let wire: SfnWire;
let output: Captured;
beforeAll(async () => {
  wire = await startSfnWire();
});
afterAll(() => wire.close());
beforeEach(() => {
  wire.reset();
  vi.stubEnv('POWERTOOLS_METRICS_NAMESPACE', 'WfTelemetryTest');
  vi.stubEnv('POWERTOOLS_SERVICE_NAME', 'wf-test');
  vi.stubEnv('POWERTOOLS_LOG_LEVEL', 'DEBUG');
  output = captureOutput();
});
afterEach(() => {
  output.restore();
  vi.unstubAllEnvs();
});

describe('approval telemetry', () => {
  it('logs the request and the decision with their ids and no token, and counts the decision', async () => {
    // Prepare: a run parked on an approval; the handler and the pages share one telemetry, as in Lambda
    const clock = new FixedClock();
    const parked = await parkRun(clock);
    const telemetry = createTelemetry();
    const observed = observeStore(store, telemetryObserver(telemetry));
    const taskTokens = sfnTaskTokens(wire.client, { sleep: async () => {} });
    const inbox = inboxNotifier();
    const taskToken = `task-token-${randomUUID()}`;
    const requestHandler = createRequestApprovalHandler(
      async () => ({
        store: observed,
        clock,
        keyring,
        publicBaseUrl: PUBLIC_BASE,
        notifier: inbox,
        taskTokens,
        logger: telemetry.logger,
      }),
      telemetry,
    );
    const app = createApprovalApp({
      store: observed,
      clock,
      keyring,
      taskTokens,
      publicBaseUrl: PUBLIC_BASE,
      logger: telemetry.logger,
    });
    const request = (path: string, init?: RequestInit) =>
      withInvocation(telemetry, {}, async () => app.request(path, init));

    // Act: the wait is requested, the approver opens the link and approves
    await requestHandler({ runId: parked.run.runId, turn: parked.run.turn, taskToken });
    const link = new URL(inbox.notices().find((notice) => notice.approver === BOSS)!.url);
    const page = await request(`${link.pathname}${link.search}`);
    const nonce = nonceOf(await page.text());
    const token = link.searchParams.get('t')!;
    const decided = await withInvocation(telemetry, {}, async () =>
      postForm(app, parked.approval.approvalId, { t: token, nonce, decision: 'approve' }),
    );

    // Assess: the decision went through and resumed the execution
    expect(decided.status).toBe(200);
    expect(wire.calls.map((call) => call.target)).toContain('AWSStepFunctions.SendTaskSuccess');

    // Assess: the lines are there, with ids and owner (the scan below is not vacuous)
    const logs = output.logs();
    const { runId, owner } = parked.run;
    expect(logs).toContainEqual(
      expect.objectContaining({ message: 'approval notices sent', runId, owner, service: 'wf-test' }),
    );
    expect(logs).toContainEqual(
      expect.objectContaining({
        message: 'approval decided',
        approvalId: parked.approval.approvalId,
        runId,
        owner,
        decision: 'approved',
      }),
    );

    // Assess: no credential of the approval flow was written anywhere
    const written = output.chunks.join('');
    for (const secret of [
      taskToken,
      token,
      encodeURIComponent(token),
      nonce,
      link.href,
      link.search,
      keyring.current.secret,
    ]) {
      expect(written).not.toContain(secret);
    }

    // Assess: the decision is counted, by decision
    const decisions = output
      .emf()
      .filter((blob) => blob._aws.CloudWatchMetrics[0]?.Metrics.some((m) => m.Name === 'ApprovalsDecided'));
    expect(decisions).toEqual([
      expect.objectContaining({
        _aws: expect.objectContaining({
          CloudWatchMetrics: [
            {
              Namespace: 'WfTelemetryTest',
              Dimensions: [['service', 'Decision']],
              Metrics: [{ Name: 'ApprovalsDecided', Unit: 'Count' }],
            },
          ],
        }),
        Decision: 'approved',
        ApprovalsDecided: 1,
      }),
    ]);
  });

  it('counts an approval the wait expired, from the Expire handler', async () => {
    // Prepare: a parked run whose approval is past its expiry
    const clock = new FixedClock();
    const parked = await parkRun(clock, [BOSS], 60);
    const telemetry = createTelemetry();
    const expire = createExpireHandler(
      () => ({ store: observeStore(store, telemetryObserver(telemetry)), clock }),
      telemetry,
    );
    clock.advance(61_000);

    // Act
    const result = await expire({ runId: parked.run.runId, turn: parked.run.turn, segmentStartTurn: 0 });

    // Assess
    expect(result).toEqual({ expired: 1 });
    const expired = output.emf().filter((blob) => 'ApprovalsExpired' in blob);
    expect(expired).toEqual([expect.objectContaining({ ApprovalsExpired: 1, service: 'wf-test' })]);
    expect(output.logs()).toContainEqual(
      expect.objectContaining({
        message: 'approval wait timed out',
        expired: 1,
        runId: parked.run.runId,
        owner: parked.run.owner,
      }),
    );
  });
});
