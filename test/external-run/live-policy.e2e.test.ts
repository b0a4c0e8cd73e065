/**
 * External runs under the live policy, on the local stack with the fixture engine: a `live` workflow disabled,
 * deleted or republished in mode `off` after its run was created sends the engine nothing (Start), and one
 * disabled or deleted while its execution runs has that execution cancelled at the next observe and delivers
 * nothing; either way the run ends `denied`, stop reason `policy_denied` (docs/security.md).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { executionKeyFor } from '../../shared/external/run/index.ts';
import { eventually, getRun } from '../e2e/support.ts';
import { withStoreOverrides } from '../support/store-overrides.ts';
import {
  applyExternal,
  auditOf,
  type ExternalStack,
  externalEvents,
  externalRunEnded,
  externalWorkflow,
  ledgerOf,
  startExternalRun,
  startExternalStack,
} from './support.ts';

type Change = 'disable' | 'delete' | 'republish off';

/** Changes the workflow through the API, as its owner would. */
async function change(h: ExternalStack, name: string, workflowId: string, how: Change): Promise<void> {
  if (how === 'disable') await h.client.post(`/v1/workflows/${workflowId}/disable`, {});
  if (how === 'delete') await h.client.request('DELETE', `/v1/workflows/${workflowId}`);
  if (how === 'republish off') await applyExternal(h, name, externalWorkflow(name, 'off'));
}

describe('external runs under the live policy', () => {
  let h: ExternalStack;
  /** Runs once, inside the next Start of this workflow, before its first write: "changed before Start". */
  let beforeStart: { workflowId: string; act: () => Promise<void> } | undefined;
  beforeAll(async () => {
    h = await startExternalStack({
      wrapExternalDeps: (deps) => ({
        ...deps,
        store: withStoreOverrides(deps.store, {
          async getWorkflowVersion(owner, workflowId, version) {
            const hook = beforeStart?.workflowId === workflowId ? beforeStart : undefined;
            if (hook) {
              beforeStart = undefined;
              await hook.act();
            }
            return deps.store.getWorkflowVersion(owner, workflowId, version);
          },
        }),
      }),
    });
  });
  afterAll(async () => {
    await h?.close();
  });

  it.each<Change>(['disable', 'delete', 'republish off'])(
    'a live workflow changed (%s) before Start: nothing is sent, the run ends denied',
    async (how) => {
      // Prepare
      h.engine.script('*', { running: 1, artifacts: [{ path: 'result.json', content: '{"ok":true}' }] });
      const name = `before-start-${how.replace(' ', '-')}`;
      const workflowId = await applyExternal(h, name, externalWorkflow(name, 'live'));
      const dispatched = h.engine.count('dispatch');
      beforeStart = { workflowId, act: () => change(h, name, workflowId, how) };

      // Act
      const runId = await startExternalRun(h, workflowId);
      const run = await externalRunEnded(h, runId);

      // Assess: the engine heard nothing, the run says why, nothing was delivered.
      expect(beforeStart).toBeUndefined();
      expect(h.engine.count('dispatch')).toBe(dispatched);
      expect(h.engine.execution(executionKeyFor(runId))).toBeUndefined();
      expect(run).toMatchObject({ status: 'denied', stopReason: 'policy_denied' });
      expect(run.delivery).toBeUndefined();
      expect(await ledgerOf(h, runId)).toEqual([]);
      expect((await externalEvents(h, runId)).map((event) => event.event)).toEqual(['policy_denied']);
      expect((await auditOf(h, runId)).verification.ok).toBe(true);
    },
  );

  it.each<Change>(['disable', 'delete'])(
    'a live workflow changed (%s) while its execution runs: the execution is cancelled, nothing delivered',
    async (how) => {
      // Prepare: an execution that runs until it is cancelled.
      h.engine.script('*', {
        running: 100_000,
        artifacts: [{ path: 'result.json', content: '{"ok":true}' }],
      });
      const name = `observing-${how}`;
      const workflowId = await applyExternal(h, name, externalWorkflow(name, 'live'));
      const runId = await startExternalRun(h, workflowId);
      const key = executionKeyFor(runId);
      await eventually('the execution observed', async () =>
        ((await getRun(h, runId)).external?.observes ?? 0) >= 1 ? true : undefined,
      );

      // Act
      await change(h, name, workflowId, how);
      const run = await externalRunEnded(h, runId);

      // Assess
      expect(run).toMatchObject({ status: 'denied', stopReason: 'policy_denied' });
      expect(run.delivery).toBeUndefined();
      expect(run.external?.cancel).toMatchObject({ requested: true, acknowledged: true, stopped: true });
      expect(h.engine.execution(key)?.cancel).toBe('done');
      expect(h.engine.count('dispatch')).toBeGreaterThan(0);
      expect((await ledgerOf(h, runId)).map((row) => [row.toolUseId, row.status])).toEqual([
        ['external-cancel', 'completed'],
        ['external-start', 'completed'],
      ]);
      const { entries, verification } = await auditOf(h, runId);
      expect(entries.map((entry) => entry.type)).not.toContain('delivered');
      expect(verification.ok).toBe(true);
    },
  );
});
