/**
 * A retried step starts its next attempt clean (docs/graph-workflows.md, "Operations"): nothing of the failed
 * attempt — its `timedOut`, `output`, `approvalId`, `error`, child, input, times — is kept. A human task that
 * timed out (`onTimeout: fail`) and is then submitted in its second attempt is not `timedOut`.
 */
import { describe, expect, it } from 'vitest';
import type { TaskTokensPort } from '../../shared/approvals-http/task-tokens.ts';
import { markRunFailed } from '../../shared/core/mark-failed.ts';
import { advanceGraphRun } from '../../shared/graph-run/advance.ts';
import { completeStep } from '../../shared/graph-run/complete-step.ts';
import { graphDefinitions } from '../../shared/graph-run/definitions.ts';
import { retryGraphStep } from '../../shared/graph-run/operations.ts';
import { startHumanTaskWait } from '../../shared/graph-run/wait.ts';
import { humanTaskExpiry } from '../../shared/human-tasks/expiry.ts';
import { completeHumanTask, humanTaskPort } from '../../shared/human-tasks/index.ts';
import { inboxNotifier } from '../../shared/notify/index.ts';
import type { ExecutionsPort } from '../../shared/runs/ports.ts';
import { humanTaskId } from '../../shared/schemas/human-task.ts';
import { keyring, PUBLIC_BASE, recordingLogger } from '../approvals-http/support.ts';
import { FixedClock, seedRun, seedWorkflow, testStore } from '../support/store.ts';
import { reviewGraph } from './fixtures.ts';

const store = testStore();
const MANAGER = 'manager@example.com';

describe('a retried step', () => {
  it('a timed-out human task, retried and submitted, is not timedOut', async () => {
    const clock = new FixedClock();
    const { version } = await seedWorkflow(store, reviewGraph('retried-step-state', MANAGER), { clock });
    const run = await seedRun(store, version, { clock });
    const graph = { store, definitionOf: graphDefinitions(store), clock };
    const tokens: TaskTokensPort = {
      async sendSuccess() {
        return 'sent';
      },
      async sendFailure() {
        return 'sent';
      },
    };
    const service = {
      store,
      clock,
      keyring,
      publicBaseUrl: PUBLIC_BASE,
      taskTokens: tokens,
      logger: recordingLogger(),
    };
    const humanTasks = humanTaskPort({ ...service, notifier: inboxNotifier() });
    const complete = { ...graph, humanTasks: humanTaskExpiry({ store, clock }) };
    const ref = { runId: run.runId, stepId: 'review', type: 'human_task' as const };
    const step = async () => (await store.loadGraphRun(run.runId))!.steps.find((s) => s.stepId === 'review');

    await advanceGraphRun(graph, run.runId);
    await startHumanTaskWait({ ...graph, humanTasks }, { ...ref, attempt: 1, taskToken: 'tok-1' });
    expect(await completeStep(complete, { ...ref, attempt: 1, error: { Error: 'States.Timeout' } })).toBe(
      'failed',
    );
    expect(await step()).toMatchObject({ status: 'failed', timedOut: true, error: { name: 'TimedOut' } });
    await markRunFailed(
      { store, clock },
      { runId: run.runId, error: { name: 'StepFailed', message: 'review' } },
    );

    const executions = { graph: { start: async (name: string) => ({ executionArn: `arn:${name}` }) } };
    await retryGraphStep(
      { store, clock, executions: executions as unknown as ExecutionsPort, taskTokens: tokens, humanTasks },
      { owner: run.owner, runId: run.runId, actor: 'owner:op', stepId: 'review' },
    );
    const retried = await step();
    expect(retried).toMatchObject({ status: 'pending', attempt: 1 });
    for (const field of [
      'timedOut',
      'output',
      'approvalId',
      'error',
      'taskToken',
      'startedAt',
      'endedAt',
    ] as const)
      expect(retried?.[field], field).toBeUndefined();

    expect(await advanceGraphRun(graph, run.runId)).toMatchObject({ next: 'steps', steps: [{ attempt: 2 }] });
    await startHumanTaskWait({ ...graph, humanTasks }, { ...ref, attempt: 2, taskToken: 'tok-2' });
    await completeHumanTask(service, {
      taskId: humanTaskId(run.runId, 'review', 2),
      assignee: MANAGER,
      values: { approve: true },
    });
    expect(await completeStep(complete, { ...ref, attempt: 2, result: { output: { approve: true } } })).toBe(
      'succeeded',
    );
    const final = await step();
    expect(final).toMatchObject({ status: 'succeeded', attempt: 2, output: { approve: true } });
    expect(final?.timedOut).toBeUndefined();
  });
});
