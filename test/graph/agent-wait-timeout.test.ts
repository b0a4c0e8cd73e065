/**
 * An agent step whose wait gave up on its child, on the store (DynamoDB Local): `AgentTask`'s 15-day
 * `TimeoutSeconds` backstop fails the wait with `States.Timeout`
 * (https://docs.aws.amazon.com/step-functions/latest/dg/concepts-error-handling.html), which the Catch routes to
 * RecordStepError (CompleteStep with the error). The step fails, and so does the run; MarkGraphFailed then ends
 * the child run — still waiting on an approval, or still turning — `cancelled` and stops its current execution
 * (shared/graph-run/end-children.ts): it must not keep working, and spending, for a step that no longer waits.
 * CompleteStep (graph-advance) does not end it itself: ending a run needs writes, anchors and a signer it lacks.
 */
import { describe, expect, it } from 'vitest';
import { markRunFailed } from '../../shared/core/mark-failed.ts';
import { advanceGraphRun } from '../../shared/graph-run/advance.ts';
import { completeStep } from '../../shared/graph-run/complete-step.ts';
import { cancelChildrenOfFailedGraph } from '../../shared/graph-run/end-children.ts';
import { unconfiguredHumanTasks } from '../../shared/graph-run/human-task-port.ts';
import { childRunIdFor, startStepWait } from '../../shared/graph-run/wait.ts';
import { humanTaskExpiry } from '../../shared/human-tasks/expiry.ts';
import type { ExecutionsPort } from '../../shared/runs/ports.ts';
import { apiHarness } from '../api/helpers.ts';
import { aliceRunOf, graphRunDeps, oneAgentStepGraph } from '../support/graph-fixtures.ts';

const MACHINE = 'arn:aws:states:local:0:execution:agent';

describe('An agent step whose wait timed out', () => {
  const h = apiHarness();
  const stopped: { arn: string; cause: string }[] = [];
  const executions: ExecutionsPort = {
    start: async (name) => ({ executionArn: `${MACHINE}:${name}` }),
    stop: async (arn, cause) => void stopped.push({ arn, cause }),
    arnOf: (_kind, name) => `${MACHINE}:${name}`,
  };
  const deps = () => graphRunDeps(h, executions, unconfiguredHumanTasks);

  async function waitingAgentStep(name: string) {
    const run = await aliceRunOf(h, oneAgentStepGraph(name));
    await advanceGraphRun(deps(), run.runId);
    const wait = { runId: run.runId, stepId: 'triage', type: 'agent_task' as const, attempt: 1 };
    expect(await startStepWait(deps(), { ...wait, taskToken: 'token-1' })).toBe('child_started');
    const childRunId = childRunIdFor(run.runId, 'triage', 1);
    // The child parked on an approval (its execution waits on a task token).
    const child = await h.store.getRun(childRunId);
    await h.store.commit({ run: child!, next: { ...child!, status: 'awaiting_approval' } });
    return { runId: run.runId, childRunId, wait };
  }

  /** RecordStepError, Advance's verdict and MarkGraphFailed, as the graph machine runs them. */
  async function timeOutAndFail(
    runId: string,
    wait: { runId: string; stepId: string; type: 'agent_task'; attempt: number },
  ) {
    const completeDeps = { ...deps(), humanTasks: humanTaskExpiry({ store: h.store, clock: h.clock }) };
    const status = await completeStep(completeDeps, {
      ...wait,
      error: { Error: 'States.Timeout', Cause: 'AgentTask timed out' },
    });
    expect(await advanceGraphRun(deps(), runId)).toMatchObject({ next: 'failed' });
    const failDeps = { store: h.store, clock: h.clock, executions };
    await markRunFailed(failDeps, { runId, error: { name: 'StepFailed', message: 'triage timed out' } });
    await cancelChildrenOfFailedGraph(failDeps, runId);
    return { status, completeDeps, failDeps };
  }

  it('fails the step; MarkGraphFailed ends the child cancelled and stops its execution', async () => {
    // Prepare
    const { runId, childRunId, wait } = await waitingAgentStep('agent-timeout');
    stopped.length = 0;

    // Act: RecordStepError with the wait's States.Timeout, then the run fails
    const { status, completeDeps, failDeps } = await timeOutAndFail(runId, wait);

    // Assess
    expect(status).toBe('failed');
    const step = (await h.store.loadGraphRun(runId))?.steps.find((s) => s.stepId === 'triage');
    expect(step).toMatchObject({ status: 'failed', error: { name: 'States.Timeout' } });
    expect(await h.store.getRun(childRunId)).toMatchObject({ status: 'cancelled', stopReason: 'cancelled' });
    expect(stopped).toEqual([
      { arn: `${MACHINE}:${childRunId}`, cause: "the graph run failed; step triage's wait ended" },
    ]);
    const audit = await h.store.listAudit(childRunId);
    expect(audit.find((entry) => entry.type === 'cancel_requested')).toMatchObject({
      actor: 'system',
      data: { parentRunId: runId },
    });

    // A repeated completion (a retried RecordStepError) or MarkGraphFailed changes nothing and stops nothing again.
    expect(await completeStep(completeDeps, { ...wait, error: { Error: 'States.Timeout' } })).toBe(
      'unchanged',
    );
    await cancelChildrenOfFailedGraph(failDeps, runId);
    expect(stopped).toHaveLength(1);
  });

  it('leaves a child that already ended as it is', async () => {
    // Prepare: the child ended (its answer lost the race with the timer)
    const { runId, childRunId, wait } = await waitingAgentStep('agent-timeout-ended');
    const parked = await h.store.getRun(childRunId);
    const running = await h.store.commit({ run: parked!, next: { ...parked!, status: 'running' } });
    await h.store.commit({ run: running, next: { ...running, status: 'done', stopReason: 'end_turn' } });
    stopped.length = 0;

    // Act
    await timeOutAndFail(runId, wait);

    // Assess
    expect(await h.store.getRun(childRunId)).toMatchObject({ status: 'done' });
    expect(stopped).toEqual([]);
  });
});
