/**
 * Owners hear about external runs that end failed or denied, on the local stack with the fixture engine: a
 * step that ends the run (the engine reports failure, the live policy refuses) stops the execution without
 * MarkExternalFailed, so the external function tells the owner itself (functions/external.ts), into the same
 * inbox as an agent run's notices. Only the run's owner is told, once; a run that ends done tells nobody; a
 * step that fails for good is told once, by MarkExternalFailed; a notice that cannot be sent changes nothing.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createExternalHandler } from '../../functions/external.ts';
import type { OwnerNotice } from '../../shared/notify/index.ts';
import type { Run } from '../../shared/schemas/run.ts';
import { eventually, getRun } from '../e2e/support.ts';
import {
  applyExternal,
  type ExternalStack,
  externalRunEnded,
  externalWorkflow,
  startExternalRun,
  startExternalStack,
} from './support.ts';

const KEY_A = `wfl_${'A'.repeat(32)}`;
const KEY_B = `wfl_${'B'.repeat(32)}`;

describe('owner notices of external runs', () => {
  let h: ExternalStack;
  /** With a run id: every Observe of that run throws (a step failing for good: no Retry matches). */
  const broken: { observe?: string | undefined } = {};
  let workflowId: string;
  beforeAll(async () => {
    h = await startExternalStack(
      {
        wrapExternalDeps: (deps) => ({
          ...deps,
          adapterFor(run, definition) {
            const inner = deps.adapterFor(run, definition);
            const adapter = Object.create(inner) as typeof inner;
            adapter.observe = async (key, incarnation) => {
              if (broken.observe === run.runId) throw new Error('the observe step broke');
              return inner.observe(key, incarnation);
            };
            return adapter;
          },
        }),
      },
      // The client is team-a's (the first key); team-b owns nothing here and must hear nothing.
      { [KEY_A]: { owner: 'team-a' }, [KEY_B]: { owner: 'team-b' } },
    );
    workflowId = await applyExternal(h, 'nightly', externalWorkflow('nightly', 'live'));
  });
  afterAll(async () => {
    await h?.close();
  });

  const noticesOf = (filter: (notice: OwnerNotice) => boolean) => h.stack.inbox.ownerNotices().filter(filter);

  it('a run the engine reports failed ends failed; its owner gets one notice naming it, no other owner any', async () => {
    // Prepare
    h.engine.script('*', { running: 1, outcome: 'failed', summary: 'compile error in main.c' });

    // Act
    const runId = await startExternalRun(h, workflowId);
    const run = await externalRunEnded(h, runId);

    // Assess
    expect(run).toMatchObject({ status: 'failed', error: { name: 'ExternalExecutionFailed' } });
    expect(noticesOf((notice) => notice.runId === runId)).toEqual([
      {
        owner: 'team-a',
        kind: 'run_failed',
        workflowName: 'nightly',
        runId,
        status: 'failed',
        stopReason: 'error',
        reason: 'ExternalExecutionFailed: compile error in main.c',
        runUrl: `${h.stack.url}/v1/runs/${runId}`,
      },
    ]);
    expect(noticesOf((notice) => notice.owner !== 'team-a')).toEqual([]);
  });

  it('a run the live policy refuses mid-run ends denied, and its owner is told so', async () => {
    // Prepare
    const name = 'nightly-disabled';
    const disabledId = await applyExternal(h, name, externalWorkflow(name, 'live'));
    h.engine.script('*', { running: 100_000, abort: 'stop' });
    const runId = await startExternalRun(h, disabledId);
    await eventually(`run ${runId} observed`, async () =>
      ((await getRun(h, runId)).external?.observes ?? 0) >= 1 ? true : undefined,
    );

    // Act
    await h.client.post(`/v1/workflows/${disabledId}/disable`, {});
    const run = await externalRunEnded(h, runId);

    // Assess
    expect(run).toMatchObject({ status: 'denied', stopReason: 'policy_denied' });
    expect(noticesOf((notice) => notice.runId === runId)).toEqual([
      expect.objectContaining({ owner: 'team-a', kind: 'run_denied', status: 'denied', runId }),
    ]);
  });

  it.each(['live', 'report_only'] as const)('a %s run that ends done sends no notice', async (mode) => {
    // Prepare: `live` ends in Finish, then Deliver; `report_only` ends in Finish itself (`stop`).
    const name = `nightly-done-${mode.replace('_', '-')}`;
    const doneId = await applyExternal(h, name, externalWorkflow(name, mode));
    h.engine.script('*', { running: 1, artifacts: [{ path: 'result.json', content: '{"ok":true}' }] });

    // Act
    const runId = await startExternalRun(h, doneId);
    const run = await externalRunEnded(h, runId);

    // Assess
    expect(run).toMatchObject({ status: 'done', external: { mode } });
    expect(noticesOf((notice) => notice.runId === runId)).toEqual([]);
  });

  it('a step that fails for good is told once: by MarkExternalFailed, not again by AbandonExternal', async () => {
    // Prepare
    h.engine.script('*', { running: 100_000, abort: 'stop' });
    const runId = await startExternalRun(h, workflowId);
    await eventually(`run ${runId} admitted`, async () =>
      (await getRun(h, runId)).external?.incarnation ? true : undefined,
    );

    // Act
    broken.observe = runId;
    const run = await externalRunEnded(h, runId);
    broken.observe = undefined;

    // Assess
    expect(run).toMatchObject({ status: 'failed', stopReason: 'error' });
    expect(noticesOf((notice) => notice.runId === runId)).toEqual([
      expect.objectContaining({ owner: 'team-a', kind: 'run_failed', runId }),
    ]);
  });

  it('a notice that cannot be sent is logged and changes neither the answer nor the run', async () => {
    // Prepare: a run the engine failed, and its Observe asked again (a retried step) with a notifier that throws.
    h.engine.script('*', { running: 1, outcome: 'failed', summary: 'red' });
    const runId = await startExternalRun(h, workflowId);
    const ended = await externalRunEnded(h, runId);
    const tried: string[] = [];
    const handler = createExternalHandler(async () => ({
      store: h.stack.store,
      clock: { nowMs: () => Date.now() },
      adapterFor: () => {
        throw new Error('an ended run asks its engine nothing');
      },
      owners: {
        apiBaseUrl: h.stack.url,
        notifier: {
          channel: 'test',
          async notifyOwner(notice) {
            tried.push(notice.runId);
            throw new Error('the topic is down');
          },
        },
      },
    }));

    // Act
    const answer = await handler({ runId, step: 'observe' });

    // Assess
    expect(answer).toEqual({ runId, next: 'stop' });
    expect(tried).toEqual([runId]);
    expect(await getRun(h, runId)).toMatchObject<Partial<Run>>({ status: 'failed', rev: ended.rev });
  });
});
