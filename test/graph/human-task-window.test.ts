/**
 * When a human task's window opens. The graph machine's Map runs at most `maxConcurrentSteps` waits at once and
 * queues the rest (https://docs.aws.amazon.com/step-functions/latest/dg/state-map-inline.html), so a task's wait
 * can reach the human-task function long after Advance set the step running; and an operator's retry is a new
 * attempt. Either way the link sent must be live for the step's whole timeout.
 */
import { describe, expect, it } from 'vitest';
import { markRunFailed } from '../../shared/core/mark-failed.ts';
import { advanceGraphRun } from '../../shared/graph-run/advance.ts';
import { completeStep } from '../../shared/graph-run/complete-step.ts';
import { graphDefinitions } from '../../shared/graph-run/definitions.ts';
import { retryGraphStep } from '../../shared/graph-run/operations.ts';
import { startHumanTaskWait } from '../../shared/graph-run/wait.ts';
import { humanTaskExpiry } from '../../shared/human-tasks/expiry.ts';
import { humanTaskPort } from '../../shared/human-tasks/index.ts';
import { inboxNotifier } from '../../shared/notify/index.ts';
import { humanTaskId } from '../../shared/schemas/human-task.ts';
import { keyring, PUBLIC_BASE, recordingLogger } from '../approvals-http/support.ts';
import { FixedClock, seedRun, seedWorkflow, testStore } from '../support/store.ts';
import { reviewGraph as reviewGraphOf } from './fixtures.ts';

const store = testStore();
const MANAGER = 'manager@example.com';
const TIMEOUT_SECONDS = 60;

// A day's deadline: the retry below comes an hour after the run started, past the default one (3600 s), and a
// run past its deadline starts nothing (docs/graph-workflows.md, "Deadline").
const reviewGraph = () => ({
  ...reviewGraphOf('review-window', MANAGER, { timeoutSeconds: TIMEOUT_SECONDS }),
  budget: { maxUsdPerRun: 1, runTimeoutSeconds: 86_400 },
});

async function graphRun() {
  const clock = new FixedClock();
  const { version } = await seedWorkflow(store, reviewGraph(), { clock });
  const run = await seedRun(store, version, { clock });
  const graph = { store, definitionOf: graphDefinitions(store), clock };
  const taskTokens = { sendSuccess: async () => 'sent' as const, sendFailure: async () => 'sent' as const };
  const humanTasks = humanTaskPort({
    store,
    clock,
    keyring,
    publicBaseUrl: PUBLIC_BASE,
    taskTokens,
    logger: recordingLogger(),
    notifier: inboxNotifier(),
  });
  const wait = (attempt: number) =>
    startHumanTaskWait(
      { ...graph, humanTasks },
      { runId: run.runId, stepId: 'review', type: 'human_task', attempt, taskToken: `token-${attempt}` },
    );
  return { clock, run, graph, wait, taskTokens };
}

describe("a human task's window", () => {
  it('opens when its wait reaches the human-task function, not when Advance started the step', async () => {
    const s = await graphRun();
    await advanceGraphRun(s.graph, s.run.runId);
    // Queued behind the Map's other iterations for longer than the task's own timeout.
    s.clock.advance(70_000);
    expect(await s.wait(1)).toBe('human_task_requested');
    const task = await store.getHumanTask(humanTaskId(s.run.runId, 'review', 1));
    expect(Date.parse(task!.expiresAt)).toBe(s.clock.nowMs() + TIMEOUT_SECONDS * 1000);
  });

  it('is kept by a re-driven wait of the same attempt', async () => {
    const s = await graphRun();
    await advanceGraphRun(s.graph, s.run.runId);
    await s.wait(1);
    const first = (await store.getHumanTask(humanTaskId(s.run.runId, 'review', 1)))!.expiresAt;
    s.clock.advance(20_000);
    await s.wait(1);
    expect((await store.getHumanTask(humanTaskId(s.run.runId, 'review', 1)))!.expiresAt).toBe(first);
  });

  it("is new for a retried step's next attempt", async () => {
    const s = await graphRun();
    await advanceGraphRun(s.graph, s.run.runId);
    await s.wait(1);
    const complete = { ...s.graph, humanTasks: humanTaskExpiry({ store, clock: s.clock }) };
    const ref = { runId: s.run.runId, stepId: 'review', type: 'human_task' as const, attempt: 1 };
    s.clock.advance(61_000);
    await completeStep(complete, { ...ref, error: { Error: 'States.Timeout' } });
    s.clock.advance(3_600_000);
    // The run fails (MarkGraphFailed after Advance's `failed`); the retry reopens it in a fresh execution.
    expect((await advanceGraphRun(s.graph, s.run.runId)).next).toBe('failed');
    await markRunFailed({ store, clock: s.clock }, { runId: s.run.runId });
    const start = async () => ({ executionArn: 'arn:retry' });
    const executions = { start, stop: async () => {}, graph: { start } };
    const retried = await retryGraphStep(
      { store, executions, clock: s.clock, taskTokens: s.taskTokens },
      { owner: s.run.owner, runId: s.run.runId, actor: `owner:${s.run.owner}`, stepId: 'review' },
    );
    expect(retried).toBeDefined();
    await advanceGraphRun(s.graph, s.run.runId);
    expect(await s.wait(2)).toBe('human_task_requested');
    const task = await store.getHumanTask(humanTaskId(s.run.runId, 'review', 2));
    expect(Date.parse(task!.expiresAt)).toBe(s.clock.nowMs() + TIMEOUT_SECONDS * 1000);
  });
});
