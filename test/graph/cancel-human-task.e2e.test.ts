/**
 * Cancelling a graph run whose human task waits, on the local stack with the real human-task service (task
 * records, signed links, the form pages), as on AWS: the cancel answers 200, the task is closed (its links stop
 * working), the step is `cancelled`, and the run's final head is anchored.
 */
import { describe, expect, it } from 'vitest';
import type { Run } from '../../shared/schemas/run.ts';
import { type AuditView, applyWorkflowText, eventually } from '../e2e/support.ts';
import { graphStackForSuite } from '../support/graph-stack.ts';
import { refundGraph, startRefund, stepsOf } from './support.ts';

describe('cancelling a graph run with an open human task (the real service)', () => {
  const graph = graphStackForSuite({ humanTasks: 'service' });

  it('closes the task, cancels the step and anchors the final head', async () => {
    const { e2e, payments } = graph;
    // Prepare: a large refund waits on the manager's review.
    const workflowId = await applyWorkflowText(
      e2e,
      'refund-large',
      refundGraph('refund-large', payments.url),
    );
    const runId = await startRefund(e2e, workflowId, 'My order never arrived. Customer c_88.');
    const task = await eventually('the open manager review', async () =>
      (await e2e.stack.store.listRunHumanTasks(runId)).find((t) => t.status === 'open'),
    );

    // Act
    const { run } = (await e2e.client.post<{ run: Run }>(`/v1/runs/${runId}/cancel`, {})).body;

    // Assess
    expect(run.status).toBe('cancelled');
    expect(await e2e.stack.store.getHumanTask(task.taskId)).toMatchObject({
      status: 'closed',
      closedReason: 'run_cancelled',
    });
    expect((await stepsOf(e2e, runId)).manager_review?.status).toBe('cancelled');
    const audit = await e2e.client.get<AuditView & { anchored: boolean }>(`/v1/runs/${runId}/audit`);
    expect(audit.entries.map((entry) => entry.type)).toContain('human_task_closed');
    expect(audit).toMatchObject({ verification: { ok: true }, anchored: true });
    expect(payments.refunds.filter((refund) => refund.customerId === 'c_88')).toEqual([]);
  });
});
