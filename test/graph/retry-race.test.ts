/**
 * An operator's retry racing the end of a failing run (docs/graph-workflows.md, "Operations"). A running run
 * whose failed step nothing else outlasts is ending: its Advance decides `failed` and MarkGraphFailed ends the
 * run whatever the retry wrote. So a retry is accepted on a running run only while another step still runs or
 * waits (fenced on the run's revision, which every step change bumps: that step's end is followed by an Advance
 * that starts the retried step); otherwise it answers 409 and the operator retries once the run has failed.
 * A retry that was accepted and then lost anyway (the run failed for another reason first) can be retried on
 * the failed run.
 */
import { describe, expect, it } from 'vitest';
import type { TaskTokensPort } from '../../shared/approvals-http/task-tokens.ts';
import { markRunFailed } from '../../shared/core/mark-failed.ts';
import { advanceGraphRun } from '../../shared/graph-run/advance.ts';
import { completeStep } from '../../shared/graph-run/complete-step.ts';
import { graphDefinitions } from '../../shared/graph-run/definitions.ts';
import { GraphOperationError, retryGraphStep } from '../../shared/graph-run/operations.ts';
import { startHumanTaskWait } from '../../shared/graph-run/wait.ts';
import { humanTaskExpiry } from '../../shared/human-tasks/expiry.ts';
import { humanTaskPort } from '../../shared/human-tasks/index.ts';
import { inboxNotifier } from '../../shared/notify/index.ts';
import type { ExecutionsPort } from '../../shared/runs/ports.ts';
import { keyring, PUBLIC_BASE, recordingLogger } from '../approvals-http/support.ts';
import { FixedClock, seedRun, seedWorkflow, testStore } from '../support/store.ts';
import { reviewGraph } from './fixtures.ts';

const store = testStore();
const MANAGER = 'manager@example.com';

const humanNode = (id: string) => ({
  id,
  type: 'human_task',
  title: id,
  assignees: [MANAGER],
  form: { type: 'object', properties: { approve: { type: 'boolean' } }, required: ['approve'] },
  timeoutSeconds: 60,
});

/** Two human tasks in parallel, joined by the end. */
const pairGraph = (name: string) => ({
  kind: 'graph',
  name,
  trigger: { type: 'on_demand' },
  budget: { maxUsdPerRun: 1 },
  approvals: { approvers: [MANAGER] },
  nodes: [
    { id: 'start', type: 'start' },
    humanNode('review'),
    humanNode('audit'),
    { id: 'done', type: 'end' },
  ],
  edges: [
    { from: 'start', to: 'review' },
    { from: 'start', to: 'audit' },
    { from: 'review', to: 'done' },
    { from: 'audit', to: 'done' },
  ],
});

const tokens: TaskTokensPort = {
  async sendSuccess() {
    return 'sent';
  },
  async sendFailure() {
    return 'sent';
  },
};

async function started(definition: Record<string, unknown>) {
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
  const first = await advanceGraphRun(graph, run.runId);
  const ids = first.next === 'steps' ? first.steps.map((step) => step.stepId) : [];
  for (const stepId of ids)
    await startHumanTaskWait(
      { ...graph, humanTasks },
      { runId: run.runId, stepId, type: 'human_task', attempt: 1, taskToken: `tok-${stepId}` },
    );
  const complete = { ...graph, humanTasks: humanTaskExpiry({ store, clock }) };
  const timeOut = (stepId: string, attempt = 1) =>
    completeStep(complete, {
      runId: run.runId,
      stepId,
      type: 'human_task',
      attempt,
      error: { Error: 'States.Timeout' },
    });
  const starts: string[] = [];
  const executions = {
    graph: {
      start: async (name: string) => {
        starts.push(name);
        return { executionArn: `arn:${name}` };
      },
    },
  } as unknown as ExecutionsPort;
  const ops = { store, clock, executions, taskTokens: tokens, humanTasks };
  const target = (stepId: string) => ({ owner: run.owner, runId: run.runId, actor: 'owner:op', stepId });
  const steps = async () =>
    Object.fromEntries(
      ((await store.loadGraphRun(run.runId))?.steps ?? []).map((step) => [step.stepId, step]),
    );
  return { run, clock, graph, complete, timeOut, ops, target, steps, starts };
}

describe('a retry racing the end of a failing graph run', () => {
  it('is refused (409) once no other step runs, so MarkGraphFailed cannot swallow it; then accepted on the failed run', async () => {
    const s = await started(reviewGraph('retry-race-ending', MANAGER));
    expect(await s.timeOut('review')).toBe('failed');
    const decided = await advanceGraphRun(s.graph, s.run.runId);
    expect(decided.next).toBe('failed');

    // The operator's retry lands between Advance's `failed` and MarkGraphFailed.
    await expect(retryGraphStep(s.ops, s.target('review'))).rejects.toEqual(
      new GraphOperationError('the run is ending; retry once it has failed'),
    );
    expect((await s.steps()).review).toMatchObject({ status: 'failed', attempt: 1 });

    await markRunFailed(
      { store, clock: s.clock },
      { runId: s.run.runId, error: { name: 'StepFailed', message: 'x' } },
    );
    const reopened = await retryGraphStep(s.ops, s.target('review'));
    expect(reopened?.status).toBe('running');
    expect((await s.steps()).review).toMatchObject({ status: 'pending', attempt: 1 });
    expect(s.starts).toEqual([`${s.run.runId}-retry-review-2`]);
  });

  it('is accepted while another step waits, and the Advance after that step starts it', async () => {
    const s = await started(pairGraph('retry-race-sibling'));
    expect(await s.timeOut('review')).toBe('failed');
    expect((await s.steps()).audit?.status).toBe('waiting');

    const reopened = await retryGraphStep(s.ops, s.target('review'));
    expect(reopened?.status).toBe('running');
    expect(s.starts).toEqual([]); // the run's own execution carries on: no new one

    // The sibling ends; the Map's Advance finds the retried step pending and starts its next attempt.
    await completeStep(s.complete, {
      runId: s.run.runId,
      stepId: 'audit',
      type: 'human_task',
      attempt: 1,
      result: { output: { approve: true } },
    });
    const next = await advanceGraphRun(s.graph, s.run.runId);
    expect(next).toMatchObject({ next: 'steps', steps: [{ stepId: 'review', attempt: 2 }] });
    expect((await s.steps()).review).toMatchObject({ status: 'running', attempt: 2 });
  });

  it('is fenced on the run revision: a sibling that ends between its read and its write makes it refused', async () => {
    const s = await started(pairGraph('retry-race-fence'));
    expect(await s.timeOut('review')).toBe('failed');
    let raced = false;
    const racing = {
      ...s.ops,
      store: Object.assign(Object.create(store), {
        // The retry reads the sibling still waiting; the sibling's end commits before the retry's write.
        loadGraphRun: async (...args: Parameters<typeof store.loadGraphRun>) => {
          const loaded = await store.loadGraphRun(...args);
          if (!raced) {
            raced = true;
            await completeStep(s.complete, {
              runId: s.run.runId,
              stepId: 'audit',
              type: 'human_task',
              attempt: 1,
              result: { output: { approve: true } },
            });
          }
          return loaded;
        },
      }),
    };
    await expect(retryGraphStep(racing, s.target('review'))).rejects.toEqual(
      new GraphOperationError('the run is ending; retry once it has failed'),
    );
    expect(raced).toBe(true);
    expect((await s.steps()).review).toMatchObject({ status: 'failed', attempt: 1 });
    expect((await advanceGraphRun(s.graph, s.run.runId)).next).toBe('failed');
  });

  it('a retry accepted and then overtaken by a failure of the run (a Map failing for good) can be retried again', async () => {
    const s = await started(pairGraph('retry-race-lost'));
    expect(await s.timeOut('review')).toBe('failed');
    expect(await retryGraphStep(s.ops, s.target('review'))).toBeDefined();
    // Not the Advance after `audit`: the machine's Catch ends the run while `review` is pending.
    await markRunFailed(
      { store, clock: s.clock },
      { runId: s.run.runId, error: { name: 'States.TaskFailed', message: 'x' } },
    );
    expect((await s.steps()).review).toMatchObject({ status: 'pending', attempt: 1 });

    const reopened = await retryGraphStep(s.ops, s.target('review'));
    expect(reopened?.status).toBe('running');
    expect(s.starts).toEqual([`${s.run.runId}-retry-review-2`]);
    // A step that never failed still cannot be retried.
    await markRunFailed({ store, clock: s.clock }, { runId: s.run.runId });
    await expect(retryGraphStep(s.ops, s.target('audit'))).rejects.toEqual(
      new GraphOperationError('step audit has not failed'),
    );
  });
});
