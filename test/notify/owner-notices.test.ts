/**
 * Owner notices: the handlers that end runs (MarkFailed, Deliver for degraded runs, Expire) tell the run's owner,
 * with the reason and a link to the run, never an approval link; locally the inbox lists each owner only theirs.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createDeliverHandler } from '../../functions/deliver.ts';
import { createExpireHandler } from '../../functions/expire.ts';
import { createMarkFailedHandler } from '../../functions/mark-failed.ts';
import { apiKeyAuthenticator } from '../../shared/api/index.ts';
import { requestApproval } from '../../shared/approvals-http/request-approval.ts';
import { sfnTaskTokens } from '../../shared/approvals-http/task-tokens.ts';
import { inboxRoutes } from '../../shared/local/inbox-routes.ts';
import { sessionTable } from '../../shared/local/sessions.ts';
import {
  inboxNotifier,
  type OwnerNotice,
  runEndedNotice,
  snsOwnerNotifier,
} from '../../shared/notify/index.ts';
import { destinations } from '../../shared/runtime/destinations.ts';
import type { Run } from '../../shared/schemas/run.ts';
import { type SfnWire, startSfnWire } from '../approvals-http/sfn-wire.ts';
import { keyring, OPS, PUBLIC_BASE, parkRun, recordingLogger, store } from '../approvals-http/support.ts';
import { driveRun } from '../support/engine.ts';
import { FixedClock } from '../support/store.ts';
import { ownerNotice } from './fixtures.ts';
import { type SnsWire, startSnsWire } from './sns-wire.ts';

const API = 'http://127.0.0.1:8787';

let sfn: SfnWire;
let sns: SnsWire;
beforeAll(async () => {
  sfn = await startSfnWire();
  sns = await startSnsWire();
});
afterAll(async () => {
  await sfn.close();
  await sns.close();
});

describe('runEndedNotice', () => {
  const run = (fields: Partial<Run>) =>
    ({ owner: 'team-a', runId: 'run_1', workflowName: 'release-notes', ...fields }) as Run;

  it('says why a failed run failed and links the run in the API', () => {
    const notice = runEndedNotice(
      run({ status: 'failed', stopReason: 'error', error: { name: 'ModelServerError', message: 'down' } }),
      `${API}/`,
    );

    expect(notice).toEqual({
      owner: 'team-a',
      kind: 'run_failed',
      workflowName: 'release-notes',
      runId: 'run_1',
      status: 'failed',
      stopReason: 'error',
      reason: 'ModelServerError: down',
      runUrl: `${API}/v1/runs/run_1`,
    });
  });

  it('lists what was refused for a degraded denied run', () => {
    const notice = runEndedNotice(
      run({
        status: 'denied',
        stopReason: 'end_turn',
        degraded: {
          count: 1,
          refused: [{ tool: 'http_request', toolUseId: 'tu_1', turn: 0, reason: 'an approver (ops) denied' }],
        },
      }),
      API,
    );

    expect(notice).toMatchObject({
      kind: 'run_denied',
      refused: [{ tool: 'http_request', reason: 'an approver (ops) denied' }],
    });
  });

  it.each(['done', 'cancelled', 'running'] as const)('makes no notice for a %s run', (status) => {
    expect(runEndedNotice(run({ status }), API)).toBeUndefined();
  });

  it('never carries an approval link, even one that slipped into a recorded error', () => {
    const notice = runEndedNotice(
      run({
        status: 'failed',
        error: { name: 'Error', message: 'see https://x.example/approvals/apr_123?t=abc.def for details' },
      }),
      API,
    );

    expect(notice?.reason).toBe('Error: see [approval link removed] for details');
  });
});

describe('owner notices from the handlers that end runs', () => {
  it('MarkFailed tells the owner of a failed run, with the error and the run link', async () => {
    const clock = new FixedClock();
    const { run } = await parkRun(clock);
    const inbox = inboxNotifier();
    const handler = createMarkFailedHandler(() => ({
      store,
      clock,
      owners: { notifier: inbox, apiBaseUrl: API },
    }));

    await handler({
      runId: run.runId,
      error: { Error: 'ModelServerError', Cause: JSON.stringify({ errorMessage: 'the model is down' }) },
    });

    expect(inbox.ownerNotices()).toEqual([
      expect.objectContaining({
        owner: run.owner,
        kind: 'run_failed',
        runId: run.runId,
        status: 'failed',
        reason: 'ModelServerError: the model is down',
        runUrl: `${API}/v1/runs/${run.runId}`,
      }),
    ]);
  });

  it('Expire tells the owner of each approval it expired, once (a retried Expire tells nobody again)', async () => {
    const clock = new FixedClock();
    const { run, approval } = await parkRun(clock, [OPS], 60);
    const inbox = inboxNotifier();
    const handler = createExpireHandler(() => ({
      store,
      clock,
      owners: { notifier: inbox, apiBaseUrl: API },
    }));
    clock.advance(61_000);

    await handler({ runId: run.runId, turn: run.turn, segmentStartTurn: 0 });
    await handler({ runId: run.runId, turn: run.turn, segmentStartTurn: 0 });

    expect(inbox.ownerNotices()).toEqual([
      expect.objectContaining({
        owner: run.owner,
        kind: 'approval_expired',
        runId: run.runId,
        refused: [{ tool: 'notes_append', reason: 'expired' }],
      }),
    ]);
    expect(inbox.ownerNotices()[0]?.reason).toContain(OPS);
    expect(JSON.stringify(inbox.ownerNotices())).not.toContain(approval.approvalId.concat('?t='));
  });

  it('Deliver tells the owner of a degraded (denied) run, and what was refused', async () => {
    const clock = new FixedClock();
    const parked = await parkRun(clock, [OPS]);
    const taskTokens = sfnTaskTokens(sfn.client, { sleep: async () => {} });
    const nobody = { channel: 'sns', reaches: () => false, notify: async () => undefined };
    await requestApproval(
      {
        store,
        clock,
        keyring,
        publicBaseUrl: PUBLIC_BASE,
        notifier: nobody,
        taskTokens,
        logger: recordingLogger(),
      },
      { runId: parked.run.runId, taskToken: 't-deliver' },
    );
    await driveRun(parked.deps, parked.run.runId, { turn: parked.waiting.turn, segmentStartTurn: 0 });
    const inbox = inboxNotifier();
    const { egress, secrets, actions } = parked.deps;
    const handler = createDeliverHandler(async () => ({
      store,
      clock,
      destinations: destinations({ catalog: actions, egress, secrets, clock }),
      owners: { notifier: inbox, apiBaseUrl: API },
    }));

    await handler({ runId: parked.run.runId, turn: 0, segmentStartTurn: 0 });

    expect(inbox.ownerNotices()).toEqual([
      expect.objectContaining({ kind: 'run_denied', status: 'denied', runId: parked.run.runId }),
    ]);
    expect(inbox.ownerNotices()[0]?.refused?.[0]).toMatchObject({ tool: 'notes_append' });
    expect(inbox.ownerNotices()[0]?.refused?.[0]?.reason).toContain('no approver could be reached');
  });

  it('a notifier that fails is logged, never fails the handler (the run is already recorded)', async () => {
    const clock = new FixedClock();
    const { run } = await parkRun(clock);
    sns.failWith = { status: 500, code: 'InternalError' };
    const handler = createMarkFailedHandler(() => ({
      store,
      clock,
      owners: {
        notifier: snsOwnerNotifier(sns.client, 'arn:aws:sns:eu-west-1:123456789012:o'),
        apiBaseUrl: API,
      },
    }));

    const result = await handler({ runId: run.runId }).finally(() => {
      sns.failWith = undefined;
    });

    expect(result).toEqual({ status: 'failed' });
    expect((await store.getRun(run.runId))?.status).toBe('failed');
  });
});

describe('/local/inbox run notices', () => {
  const KEY_A = `wfl_${'a'.repeat(32)}`;
  const KEY_B = `wfl_${'b'.repeat(32)}`;

  it("lists each owner's run notices to that owner only", async () => {
    const clock = new FixedClock();
    const inbox = inboxNotifier();
    const mine: OwnerNotice = ownerNotice({ owner: 'owner-a', runId: 'run_aaaa' });
    const theirs: OwnerNotice = ownerNotice({
      owner: 'owner-b',
      runId: 'run_bbbb',
      kind: 'approval_expired',
    });
    await inbox.notifyOwner(mine);
    await inbox.notifyOwner(theirs);
    const app = inboxRoutes({
      inbox,
      clock,
      authenticator: apiKeyAuthenticator(
        JSON.stringify({ keys: { [KEY_A]: { owner: 'owner-a' }, [KEY_B]: { owner: 'owner-b' } } }),
      ),
      sessions: sessionTable(clock),
      origin: API,
    });
    const page = async (key: string) =>
      (await app.request('/local/inbox', { headers: { authorization: `Bearer ${key}` } })).text();

    const a = await page(KEY_A);
    const b = await page(KEY_B);

    expect(a).toContain('run_aaaa');
    expect(a).toContain('Run notices');
    expect(a).not.toContain('run_bbbb');
    expect(b).toContain('run_bbbb');
    expect(b).toContain('approval expired');
    expect(b).not.toContain('run_aaaa');
  });
});
