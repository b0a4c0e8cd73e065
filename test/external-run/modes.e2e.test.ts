/**
 * Modes on the local stack. `shadow`: the key and the exact payload are decided and recorded (run and audit
 * chain) and the fixture engine receives nothing at all. `report_only`: dispatched, observed, the artifact
 * verified and recorded, nothing delivered. `off`: the run is refused and nothing is written. Promoting a
 * workflow from shadow to live is on the owner's workflow-change chain with the mode.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ApiError } from '../../shared/cli/client.ts';
import { executionKeyFor } from '../../shared/external/run/index.ts';
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

describe('external run modes', () => {
  let h: ExternalStack;
  beforeAll(async () => {
    h = await startExternalStack();
    h.engine.script('*', { running: 1, artifacts: [{ path: 'result.json', content: '{"ok":true}' }] });
  });
  afterAll(async () => {
    await h?.close();
  });

  it('shadow records the exact payload and key and sends the engine nothing', async () => {
    const workflowId = await applyExternal(h, 'nightly-shadow', externalWorkflow('nightly-shadow', 'shadow'));
    const runId = await startExternalRun(h, workflowId, { commit: 'def456' });
    const run = await externalRunEnded(h, runId);

    expect(h.engine.count()).toBe(0);
    const payload = { branch: 'main', target: 'nightly', input: { commit: 'def456' } };
    expect(run).toMatchObject({ status: 'done', stopReason: 'shadow' });
    expect(run.external).toMatchObject({ mode: 'shadow', key: executionKeyFor(runId), payload });
    expect(run.external?.incarnation).toBeUndefined();
    expect(run.delivery).toBeUndefined();
    expect(await ledgerOf(h, runId)).toEqual([]);
    const events = await externalEvents(h, runId);
    expect(events).toEqual([
      expect.objectContaining({ event: 'decided', mode: 'shadow', key: executionKeyFor(runId), payload }),
      expect.objectContaining({ event: 'shadow_recorded', dispatched: false }),
    ]);
    expect((await auditOf(h, runId)).verification.ok).toBe(true);
  });

  it('report_only dispatches and records the verified artifact but delivers nothing', async () => {
    const workflowId = await applyExternal(
      h,
      'nightly-report',
      externalWorkflow('nightly-report', 'report_only'),
    );
    const runId = await startExternalRun(h, workflowId);
    const run = await externalRunEnded(h, runId);

    expect(run).toMatchObject({ status: 'done', result: { text: '{"ok":true}' } });
    expect(run.external).toMatchObject({ mode: 'report_only', artifact: { path: 'result.json', size: 11 } });
    expect(run.delivery).toBeUndefined();
    const { entries } = await auditOf(h, runId);
    expect(entries.map((entry) => entry.type)).not.toContain('delivered');
    expect((await externalEvents(h, runId)).at(-1)).toMatchObject({ event: 'reported', published: false });
    expect(h.engine.execution(executionKeyFor(runId))).toBeDefined();
  });

  it('off refuses the run and writes nothing', async () => {
    const workflowId = await applyExternal(h, 'nightly-off', externalWorkflow('nightly-off', 'off'));
    const before = h.engine.count();
    const attempt = startExternalRun(h, workflowId);
    await expect(attempt).rejects.toBeInstanceOf(ApiError);
    await expect(attempt).rejects.toMatchObject({ status: 409 });
    const runs = await h.client.get<{ items: unknown[] }>(`/v1/runs?workflowId=${workflowId}`);
    expect(runs.items).toEqual([]);
    expect(h.engine.count()).toBe(before);
  });

  it('promoting shadow to live is an audited change that records the mode', async () => {
    const name = 'nightly-promoted';
    await applyExternal(h, name, externalWorkflow(name, 'shadow'));
    const workflowId = await applyExternal(h, name, externalWorkflow(name, 'live'));
    const audit = await h.client.get<{
      changes: { entries: { type: string; workflowId?: string; data: Record<string, unknown> }[] };
    }>('/v1/audit');
    const changes = audit.changes.entries.filter((change) => change.workflowId === workflowId);
    expect(changes.map((change) => [change.type, change.data.mode])).toEqual([
      ['workflow_created', 'shadow'],
      ['workflow_version_added', 'live'],
    ]);
  });
});
