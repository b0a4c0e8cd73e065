import { describe, expect, it, vi } from 'vitest';
import { createStartRunHandler } from '../../functions/start-run.ts';
import { createTelemetry } from '../../shared/runtime/telemetry.ts';
import { RecordingExecutions } from '../api/helpers.ts';
import { FixedClock, minimalWorkflow, randomIds, seedWorkflow, testStore } from '../support/store.ts';

const store = testStore();

/** start-run as a rule's target invokes it: `{ owner, workflowId, event }`. */
async function setup() {
  const { head } = await seedWorkflow(
    store,
    minimalWorkflow({ trigger: { type: 'event', pattern: { source: ['com.example.orders'] } } }),
  );
  const executions = new RecordingExecutions();
  const telemetry = createTelemetry({});
  const handler = createStartRunHandler(
    () => ({ store, executions, clock: new FixedClock(), ids: randomIds }),
    telemetry,
  );
  const invoke = (id: string, detail: Record<string, unknown>) =>
    handler({
      owner: head.owner,
      workflowId: head.workflowId,
      event: { version: '0', id, source: 'com.example.orders', 'detail-type': 'Order Placed', detail },
    });
  return { head, executions, invoke, telemetry };
}

describe('start-run handler: owner stamp', () => {
  it('starts a run for an event stamped with the workflow owner', async () => {
    const { head, executions, invoke } = await setup();
    const result = await invoke('evt-own', { 'wf-owner': head.owner });
    expect(result).toMatchObject({ created: true, runId: expect.any(String) });
    expect(executions.starts).toHaveLength(1);
  });

  it.each([
    ['another owner', { 'wf-owner': 'someone-else' }],
    ['no stamp', { total: 1 }],
    ['a stamp that is not a string', { 'wf-owner': ['x'] }],
  ])('records and refuses an event with %s, starting nothing', async (_label, detail) => {
    const { executions, invoke, telemetry } = await setup();
    const warn = vi.spyOn(telemetry.logger, 'warn').mockImplementation(() => {});
    const result = await invoke('evt-foreign', detail);
    expect(result).toEqual({ refused: 'owner_mismatch', eventId: 'evt-foreign' });
    expect(executions.starts).toHaveLength(0);
    expect(warn).toHaveBeenCalledWith(
      'event refused: its owner stamp is not the workflow owner',
      expect.objectContaining({ eventId: 'evt-foreign' }),
    );
  });
});

describe('start-run handler: a workflow that cannot run', () => {
  it.each([
    ['disabled', { enabled: false }, 'disabled'],
    ['deleted', { enabled: false, deleted: true }, 'not_found'],
  ] as const)(
    'answers a trigger of a %s workflow with a refusal instead of an error (no Lambda retry, no dead letter)',
    async (_label, change, reason) => {
      // Prepare
      const { head, executions, invoke, telemetry } = await setup();
      await store.updateWorkflowHead(head, { ...head, ...change }, 'deleted' in change);
      const info = vi.spyOn(telemetry.logger, 'info').mockImplementation(() => {});

      // Act
      const result = await invoke('evt-late', { 'wf-owner': head.owner });

      // Assess
      expect(result).toEqual({ refused: reason, workflowId: head.workflowId });
      expect(executions.starts).toHaveLength(0);
      expect(info).toHaveBeenCalledWith(
        'trigger refused: the workflow cannot run',
        expect.objectContaining({ workflowId: head.workflowId, reason }),
      );
    },
  );

  it('answers a schedule of a workflow that does not exist with a refusal', async () => {
    // Prepare
    const { head, executions } = await setup();
    const handler = createStartRunHandler(
      () => ({ store, executions, clock: new FixedClock(), ids: randomIds }),
      createTelemetry({}),
    );

    // Act
    const result = await handler({
      owner: head.owner,
      workflowId: 'wf_missing000000',
      scheduledTime: '2026-11-30T08:00:00Z',
    });

    // Assess
    expect(result).toEqual({ refused: 'not_found', workflowId: 'wf_missing000000' });
    expect(executions.starts).toHaveLength(0);
  });
});
