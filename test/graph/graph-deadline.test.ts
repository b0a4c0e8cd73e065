/**
 * A graph run's own deadline (`budget.runTimeoutSeconds`, stamped `deadlineAt` when the run is created;
 * docs/graph-workflows.md, "Deadline"): past it nothing new starts. The Advance that would start or re-drive a
 * step ends the run `failed` (stop reason `timeout`, `RunTimedOut`) in a fenced commit and answers `failed`;
 * MarkGraphFailed then tells the owner and cancels the children of steps still running or waiting. A run whose
 * work is all done completes; a pause does not hold the deadline off; a retry past it is refused.
 */
import { describe, expect, it } from 'vitest';
import { createMarkFailedHandler } from '../../functions/mark-failed.ts';
import type { TaskTokensPort } from '../../shared/approvals-http/task-tokens.ts';
import { verifyAuditChain } from '../../shared/audit/index.ts';
import { STORED_ERROR_MESSAGE_UNITS } from '../../shared/core/stored-error.ts';
import { advanceGraphRun } from '../../shared/graph-run/advance.ts';
import { completeStep } from '../../shared/graph-run/complete-step.ts';
import { graphDefinitions } from '../../shared/graph-run/definitions.ts';
import { cancelChildrenOfFailedGraph } from '../../shared/graph-run/end-children.ts';
import { GraphOperationError, pauseGraphRun, retryGraphStep } from '../../shared/graph-run/operations.ts';
import { startHumanTaskWait } from '../../shared/graph-run/wait.ts';
import { humanTaskExpiry } from '../../shared/human-tasks/expiry.ts';
import { humanTaskPort } from '../../shared/human-tasks/index.ts';
import { inboxNotifier } from '../../shared/notify/index.ts';
import type { ExecutionsPort } from '../../shared/runs/ports.ts';
import { handlerTelemetry } from '../../shared/runtime/telemetry.ts';
import { humanTaskId } from '../../shared/schemas/human-task.ts';
import { keyring, PUBLIC_BASE, recordingLogger } from '../approvals-http/support.ts';
import { FixedClock, seedRun, seedWorkflow, testStore } from '../support/store.ts';

const store = testStore();
const MANAGER = 'manager@example.com';
const DEADLINE_S = 600;

const humanNode = (id: string) => ({
  id,
  type: 'human_task',
  title: id,
  assignees: [MANAGER],
  form: { type: 'object', properties: { approve: { type: 'boolean' } }, required: ['approve'] },
  timeoutSeconds: 3600,
});

const graphOf = (name: string, edges: { from: string; to: string }[], humans: string[]) => ({
  kind: 'graph',
  name,
  trigger: { type: 'on_demand' },
  budget: { maxUsdPerRun: 1, runTimeoutSeconds: DEADLINE_S },
  approvals: { approvers: [MANAGER] },
  nodes: [{ id: 'start', type: 'start' }, ...humans.map(humanNode), { id: 'done', type: 'end' }],
  edges,
});
/** start → first → second → done */
const chain = (name: string) =>
  graphOf(
    name,
    [
      { from: 'start', to: 'first' },
      { from: 'first', to: 'second' },
      { from: 'second', to: 'done' },
    ],
    ['first', 'second'],
  );
/** start → first → done */
const single = (name: string) =>
  graphOf(
    name,
    [
      { from: 'start', to: 'first' },
      { from: 'first', to: 'done' },
    ],
    ['first'],
  );
/** start → first, start → second, both → done */
const pair = (name: string) =>
  graphOf(
    name,
    [
      { from: 'start', to: 'first' },
      { from: 'start', to: 'second' },
      { from: 'first', to: 'done' },
      { from: 'second', to: 'done' },
    ],
    ['first', 'second'],
  );

const tokens: TaskTokensPort = {
  async sendSuccess() {
    return 'sent';
  },
  async sendFailure() {
    return 'sent';
  },
};

async function seeded(definition: Record<string, unknown>, opts: { advance?: boolean } = {}) {
  const clock = new FixedClock();
  const { version } = await seedWorkflow(store, definition, { clock });
  const run = await seedRun(store, version, { clock });
  const graph = { store, definitionOf: graphDefinitions(store), clock };
  const service = {
    store,
    clock,
    keyring,
    publicBaseUrl: PUBLIC_BASE,
    taskTokens: tokens,
    logger: recordingLogger(),
  };
  const humanTasks = humanTaskPort({ ...service, notifier: inboxNotifier() });
  if (opts.advance !== false) {
    const first = await advanceGraphRun(graph, run.runId);
    for (const step of first.next === 'steps' ? first.steps : [])
      await startHumanTaskWait(
        { ...graph, humanTasks },
        {
          runId: run.runId,
          stepId: step.stepId,
          type: 'human_task',
          attempt: 1,
          taskToken: `tok-${step.stepId}`,
        },
      );
  }
  const submit = (stepId: string) =>
    completeStep(
      { ...graph, humanTasks: humanTaskExpiry({ store, clock }) },
      { runId: run.runId, stepId, type: 'human_task', attempt: 1, result: { output: { approve: true } } },
    );
  const expiry = humanTaskExpiry({ store, clock });
  const markFailed = createMarkFailedHandler(
    () => ({
      store,
      clock,
      endGraphChildren: (runId: string) =>
        cancelChildrenOfFailedGraph({ store, clock, humanTasks: expiry }, runId),
    }),
    handlerTelemetry(),
  );
  const steps = async () =>
    Object.fromEntries(
      ((await store.loadGraphRun(run.runId))?.steps ?? []).map((step) => [step.stepId, step]),
    );
  const pastDeadline = () => clock.advance(DEADLINE_S * 1000 + 1);
  return { run, clock, graph, humanTasks, submit, markFailed, steps, pastDeadline };
}

describe("a graph run's deadline", () => {
  it('past it, the Advance that would start the next step ends the run failed (timeout); nothing starts', async () => {
    const s = await seeded(chain('deadline-next'));
    s.pastDeadline();
    expect(await s.submit('first')).toBe('succeeded');

    const next = await advanceGraphRun(s.graph, s.run.runId);

    expect(next).toMatchObject({ next: 'failed', error: { Error: 'RunTimedOut' } });
    expect(JSON.parse((next as { error: { Cause: string } }).error.Cause)).toEqual({
      errorMessage: `the run passed its deadline (${s.run.deadlineAt}) before it reached an end; steps left: second (not started)`,
    });
    const ended = await store.getRun(s.run.runId);
    expect(ended).toMatchObject({ status: 'failed', stopReason: 'timeout', error: { name: 'RunTimedOut' } });
    expect((await s.steps()).second).toBeUndefined();
    const audit = await store.listAudit(s.run.runId);
    expect(audit.filter((entry) => entry.type === 'status_changed').at(-1)?.data).toEqual({
      from: 'running',
      to: 'failed',
      stopReason: 'timeout',
    });
    // MarkGraphFailed (the route's answer to `failed`) finds it ended and keeps it as it is.
    expect(
      await s.markFailed({ runId: s.run.runId, error: next.next === 'failed' ? next.error : undefined }),
    ).toEqual({
      status: 'failed',
    });
    expect(await store.getRun(s.run.runId)).toMatchObject({
      stopReason: 'timeout',
      error: { name: 'RunTimedOut' },
    });
  });

  it('steps still waiting when it passes (a re-driven Advance) are cancelled with their human tasks by MarkGraphFailed', async () => {
    const s = await seeded(pair('deadline-inflight'));
    s.pastDeadline();
    const next = await advanceGraphRun(s.graph, s.run.runId);
    expect(next).toMatchObject({ next: 'failed', error: { Error: 'RunTimedOut' } });
    expect((await store.getRun(s.run.runId))?.status).toBe('failed');

    await s.markFailed({ runId: s.run.runId, error: next.next === 'failed' ? next.error : undefined });

    const steps = await s.steps();
    expect(steps.first?.status).toBe('cancelled');
    expect(steps.second?.status).toBe('cancelled');
    for (const stepId of ['first', 'second'])
      expect((await store.getHumanTask(humanTaskId(s.run.runId, stepId, 1)))?.status).not.toBe('open');
  });

  it('a paused run past it ends failed (timeout) instead of waiting for a resume', async () => {
    const s = await seeded(chain('deadline-paused'), { advance: false });
    const paused = await pauseGraphRun(
      { store, clock: s.clock, executions: {} as ExecutionsPort, taskTokens: tokens },
      { owner: s.run.owner, runId: s.run.runId, actor: 'owner:op' },
    );
    // With the revision it decided at: AwaitResume's entry (shared/graph-run/wait-fence.ts).
    expect(await advanceGraphRun(s.graph, s.run.runId)).toEqual({ next: 'paused', rev: paused?.rev });
    s.pastDeadline();
    expect(await advanceGraphRun(s.graph, s.run.runId)).toMatchObject({
      next: 'failed',
      error: { Error: 'RunTimedOut' },
    });
    expect(await store.getRun(s.run.runId)).toMatchObject({ status: 'failed', stopReason: 'timeout' });
  });

  it('a run of many steps that passes it stores its error cut to the cap; the audit entry and the Cause quote it', async () => {
    // Prepare: two hubs, each fanning out to 20 steps (the most a node may have) with 40-character ids; both hubs
    // done, none of the 40 started: the error names them all (2,000+ characters).
    const leaves = (hub: string) =>
      Array.from({ length: 20 }, (_, i) => `${hub}_step_${String(i).padStart(2, '0')}_${'x'.repeat(26)}`);
    const hubs = ['hub_a', 'hub_b'];
    const wide = graphOf(
      'deadline-wide',
      hubs.flatMap((hub) => [
        { from: 'start', to: hub },
        ...leaves(hub).flatMap((id) => [
          { from: hub, to: id },
          { from: id, to: 'done' },
        ]),
      ]),
      [...hubs, ...hubs.flatMap(leaves)],
    );
    const s = await seeded(wide);
    for (const hub of hubs) expect(await s.submit(hub)).toBe('succeeded');
    s.pastDeadline();

    // Act
    const next = await advanceGraphRun(s.graph, s.run.runId);

    // Assess
    const ended = await store.getRun(s.run.runId);
    expect(ended).toMatchObject({ status: 'failed', stopReason: 'timeout', error: { name: 'RunTimedOut' } });
    const message = ended?.error?.message ?? '';
    expect(message).toHaveLength(STORED_ERROR_MESSAGE_UNITS);
    expect(
      message.startsWith(`the run passed its deadline (${s.run.deadlineAt}) before it reached an end`),
    ).toBe(true);
    const audit = await store.listAudit(s.run.runId);
    expect(audit.find((entry) => entry.type === 'error')?.data).toEqual({ name: 'RunTimedOut', message });
    expect(verifyAuditChain(audit, { owner: s.run.owner, runId: s.run.runId })).toMatchObject({ ok: true });
    expect(next).toMatchObject({ next: 'failed', error: { Error: 'RunTimedOut' } });
    expect(JSON.parse((next as { error: { Cause: string } }).error.Cause)).toEqual({ errorMessage: message });
  });

  it('a run whose last step ended after it still completes: nothing was left to start', async () => {
    const s = await seeded(single('deadline-complete'));
    s.pastDeadline();
    await s.submit('first');
    expect(await advanceGraphRun(s.graph, s.run.runId)).toEqual({ next: 'done' });
    expect((await store.getRun(s.run.runId))?.status).toBe('done');
  });

  it('a failed step cannot be retried past it (409): the retried step could not start', async () => {
    const s = await seeded(single('deadline-retry'));
    await completeStep(
      { ...s.graph, humanTasks: humanTaskExpiry({ store, clock: s.clock }) },
      {
        runId: s.run.runId,
        stepId: 'first',
        type: 'human_task',
        attempt: 1,
        error: { Error: 'States.Timeout' },
      },
    );
    expect((await advanceGraphRun(s.graph, s.run.runId)).next).toBe('failed');
    await s.markFailed({ runId: s.run.runId });
    s.pastDeadline();
    const ops = {
      store,
      clock: s.clock,
      executions: {} as ExecutionsPort,
      taskTokens: tokens,
      humanTasks: s.humanTasks,
    };
    await expect(
      retryGraphStep(ops, { owner: s.run.owner, runId: s.run.runId, actor: 'owner:op', stepId: 'first' }),
    ).rejects.toEqual(
      new GraphOperationError(
        `the run passed its deadline (${s.run.deadlineAt}); a retried step could not start: start a new run`,
      ),
    );
  });
});
