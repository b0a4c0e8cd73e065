/**
 * A graph step's agent child run cancelled on its own (`POST /v1/runs/{child}/cancel`), on the store (DynamoDB
 * Local): its execution is stopped, so neither Deliver nor MarkFailed answers the parent step, and the stop's
 * ABORTED event finds the run ended by the cancel. The cancel answers the step's wait itself
 * (shared/runs/cancel-run.ts): the step fails (`ChildRunEnded`) at once instead of waiting out the agent step's
 * 15-day backstop. The ABORTED event answers it again (functions/mark-failed.ts), in case the cancel could not;
 * Step Functions takes one answer per token, so the second finds it closed
 * (https://docs.aws.amazon.com/step-functions/latest/apireference/API_SendTaskSuccess.html: TaskTimedOut,
 * InvalidToken), and CompleteStep drops the token with the answer it records.
 */
import { describe, expect, it } from 'vitest';
import { createMarkFailedHandler } from '../../functions/mark-failed.ts';
import { advanceGraphRun } from '../../shared/graph-run/advance.ts';
import { completeStep } from '../../shared/graph-run/complete-step.ts';
import { unconfiguredHumanTasks } from '../../shared/graph-run/human-task-port.ts';
import { answerParentStep } from '../../shared/graph-run/parent-answer.ts';
import { childRunIdFor, startStepWait } from '../../shared/graph-run/wait.ts';
import { humanTaskExpiry } from '../../shared/human-tasks/expiry.ts';
import { handlerTelemetry } from '../../shared/runtime/telemetry.ts';
import { apiHarness } from '../api/helpers.ts';
import { aliceRunOf, graphRunDeps, oneAgentStepGraph } from '../support/graph-fixtures.ts';

/** Task tokens as Step Functions answers them: the first answer of a token is taken, later ones find it closed. */
class OneAnswerTokens {
  readonly answers: { token: string; output: object; answer: 'sent' | 'already_closed' }[] = [];
  async sendSuccess(token: string, output: object) {
    const answer = this.answers.some((sent) => sent.token === token) ? 'already_closed' : 'sent';
    this.answers.push({ token, output, answer });
    return answer;
  }
}

describe("a graph step's agent child run cancelled on its own", () => {
  const tokens = new OneAnswerTokens();
  const h = apiHarness({ graph: { taskTokens: tokens, humanTasks: unconfiguredHumanTasks } });
  const deps = () => graphRunDeps(h, h.executions, humanTaskExpiry({ store: h.store, clock: h.clock }));
  const markFailed = createMarkFailedHandler(
    () => ({
      store: h.store,
      clock: h.clock,
      answerParent: (run) => answerParentStep({ store: h.store, taskTokens: tokens }, run),
    }),
    handlerTelemetry(),
  );

  let saves = 0;
  /** A graph run whose agent step waits (task token `token-<n>`) on its child, parked on an approval. */
  async function waitingAgentStep() {
    const name = `cancel-child-${++saves}`;
    const run = await aliceRunOf(h, oneAgentStepGraph(name));
    await advanceGraphRun(deps(), run.runId);
    const token = `token-${name}`;
    const wait = { runId: run.runId, stepId: 'triage', type: 'agent_task' as const, attempt: 1 };
    expect(await startStepWait(deps(), { ...wait, taskToken: token })).toBe('child_started');
    const childRunId = childRunIdFor(run.runId, 'triage', 1);
    const child = await h.store.getRun(childRunId);
    await h.store.commit({ run: child!, next: { ...child!, status: 'awaiting_approval' } });
    return { runId: run.runId, childRunId, wait, token };
  }

  /** Step Functions' event for the child's execution that the cancel stopped. */
  const aborted = (childRunId: string) => {
    const executionArn = `arn:aws:states:local:000000000000:execution:wf-runs:${childRunId}`;
    expect(h.executions.arnOf(undefined, childRunId)).toBe(executionArn);
    return {
      source: 'aws.states',
      'detail-type': 'Step Functions Execution Status Change',
      detail: {
        executionArn,
        stateMachineArn: 'arn:aws:states:local:000000000000:stateMachine:wf-runs',
        name: childRunId,
        status: 'ABORTED',
        input: JSON.stringify({ runId: childRunId, turn: 1, segmentStartTurn: 0 }),
      },
    };
  };

  const answersFor = (token: string) => tokens.answers.filter((sent) => sent.token === token);

  it("answers the parent step's wait at once: the step fails ChildRunEnded", async () => {
    // Prepare
    const { runId, childRunId, wait, token } = await waitingAgentStep();

    // Act
    const cancelled = await h.alice.post(`/v1/runs/${childRunId}/cancel`);

    // Assess
    expect(cancelled.status).toBe(200);
    expect(cancelled.body.run).toMatchObject({ status: 'cancelled', stopReason: 'cancelled' });
    expect(h.executions.stops.map((stop) => stop.executionArn)).toContain(
      h.executions.arnOf(undefined, childRunId),
    );
    const output = { childRunId, status: 'cancelled', text: '', stopReason: 'cancelled' };
    expect(answersFor(token)).toEqual([{ token, output, answer: 'sent' }]);
    // The graph machine's CompleteStep with that answer.
    expect(await completeStep(deps(), { ...wait, result: output })).toBe('failed');
    const step = (await h.store.loadGraphRun(runId))?.steps.find((s) => s.stepId === 'triage');
    expect(step).toMatchObject({ status: 'failed', error: { name: 'ChildRunEnded' } });
    expect(step?.error?.message).toBe('the child run ended cancelled (cancelled)');

    // A repeated cancel finds the step answered: nothing is sent again.
    expect((await h.alice.post(`/v1/runs/${childRunId}/cancel`)).status).toBe(200);
    expect(answersFor(token)).toHaveLength(1);
  });

  it('is answered once when the ABORTED event comes before the step completed', async () => {
    // Prepare
    const { childRunId, wait, token } = await waitingAgentStep();
    expect((await h.alice.post(`/v1/runs/${childRunId}/cancel`)).status).toBe(200);

    // Act: mark-failed's execution-ended rule delivers the stop's event while the step still holds its token.
    const answer = await markFailed(aborted(childRunId));

    // Assess: the event wrote nothing and told no owner; its answer found the token closed.
    expect(answer).toEqual({ status: undefined });
    expect(answersFor(token).map((sent) => sent.answer)).toEqual(['sent', 'already_closed']);
    expect(await h.store.getRun(childRunId)).toMatchObject({ status: 'cancelled' });
    const output = answersFor(token)[0]?.output;
    expect(await completeStep(deps(), { ...wait, result: output })).toBe('failed');
  });

  it("is answered by the ABORTED event when the cancel did not answer (a cancel with no graph's tokens)", async () => {
    // Prepare: a cancel that could not answer (a client without the graph's task tokens).
    const { childRunId, token } = await waitingAgentStep();
    const { cancelRun } = await import('../../shared/runs/cancel-run.ts');
    const plain = { store: h.store, executions: h.executions, clock: h.clock };
    await cancelRun(plain, { owner: h.owners.alice, runId: childRunId, actor: 'owner:alice' });
    expect(answersFor(token)).toEqual([]);

    // Act
    await markFailed(aborted(childRunId));

    // Assess
    expect(answersFor(token)).toEqual([
      {
        token,
        output: { childRunId, status: 'cancelled', text: '', stopReason: 'cancelled' },
        answer: 'sent',
      },
    ]);
  });

  it("answers no wait when the graph run itself is cancelled (its execution's waits ended with it)", async () => {
    // Prepare
    const { runId, childRunId, token } = await waitingAgentStep();

    // Act
    const cancelled = await h.alice.post(`/v1/runs/${runId}/cancel`);

    // Assess: the child is cancelled with it; its parent waits on nothing, so nothing is sent.
    expect(cancelled.status).toBe(200);
    expect(await h.store.getRun(childRunId)).toMatchObject({ status: 'cancelled' });
    expect(answersFor(token)).toEqual([]);
  });
});
