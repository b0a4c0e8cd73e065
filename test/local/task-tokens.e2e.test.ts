/**
 * The local stack's task-token answers go through the Step Functions endpoint's client, which exists only
 * after every machine (and so the human-task service) was built. Cancelling a graph run that waits on a real
 * human task closes the task and answers its wait with SendTaskFailure: the human-task service must not hold
 * a task-token port built before that client existed (it did: its answers failed before reaching the SDK).
 */
import { describe, expect, it } from 'vitest';
import { ApiError } from '../../shared/cli/client.ts';
import type { AwsCallRecord } from '../../shared/runtime/aws-call-recorder.ts';
import { applyWorkflowText, eventually } from '../e2e/support.ts';
import { refundGraph, startRefund, stepsOf } from '../graph/support.ts';
import { startGraphStack } from '../support/graph-stack.ts';

describe('task-token answers on the local stack', () => {
  it('answers the wait of a human task closed by a cancel, through the endpoint', async () => {
    const calls: AwsCallRecord[] = [];
    const graph = await startGraphStack({
      humanTasks: 'service',
      awsCalls: (record) => calls.push(record),
    });
    const { e2e, payments } = graph;
    try {
      const workflowId = await applyWorkflowText(
        e2e,
        'refund-large',
        refundGraph('refund-large', payments.url),
      );
      const runId = await startRefund(e2e, workflowId, 'My order never arrived. Customer c_88.');
      // Waiting, and its links sent (the request's last write): nothing else is changing the run.
      const opened = await eventually('the manager review task, notified', async () => {
        const [task] = await e2e.stack.store.listRunHumanTasks(runId);
        return task?.notifiedAt !== undefined ? task : undefined;
      });
      expect(opened.status).toBe('open');
      expect((await stepsOf(e2e, runId)).manager_review?.status).toBe('waiting');

      const sentBefore = calls.filter((call) => call.command === 'SendTaskFailure').length;
      // Until the graph cancel re-reads the run after closing its tasks (h/graph-aws), this answers 409 after the
      // run is cancelled and the task closed; the close's answer to the wait is what this test is about.
      await e2e.client.post(`/v1/runs/${runId}/cancel`, {}).catch((error: unknown) => {
        if (!(error instanceof ApiError && error.status === 409)) throw error;
      });

      const closed = await eventually('the task closed', async () => {
        const [task] = await e2e.stack.store.listRunHumanTasks(runId);
        return task?.status === 'closed' ? task : undefined;
      });
      expect(closed.closedReason).toBeDefined();
      expect(calls.filter((call) => call.command === 'SendTaskFailure').length).toBe(sentBefore + 1);
      expect(calls.filter((call) => call.command === 'SendTaskFailure').at(-1)).toMatchObject({
        fn: 'api',
        client: 'SFNClient',
      });
    } finally {
      await graph.stop();
    }
  });
});
