/**
 * A human task's context, on the path a graph run takes: the human-task function's wait (startHumanTaskWait)
 * evaluates the node's `context` paths over the run data on the graph's bounded evaluator (size limits, RE2 for
 * regex literals, one step allowance for all the paths of one try), then opens the task through humanTaskPort,
 * which stores each path with its value. A path that fails to evaluate fails the wait (TemplateRenderError, so
 * the HumanTask state's catcher fails the step) before anything is written: no task, no link, no recorded wait.
 */
import { describe, expect, it } from 'vitest';
import { advanceGraphRun } from '../../shared/graph-run/advance.ts';
import { graphDefinitions } from '../../shared/graph-run/definitions.ts';
import { TemplateRenderError } from '../../shared/graph-run/expressions.ts';
import type { GraphDefinitionOf } from '../../shared/graph-run/ports.ts';
import { startHumanTaskWait } from '../../shared/graph-run/wait.ts';
import { humanTaskPort } from '../../shared/human-tasks/index.ts';
import { inboxNotifier } from '../../shared/notify/index.ts';
import { humanTaskId } from '../../shared/schemas/human-task.ts';
import { keyring, PUBLIC_BASE, recordingLogger } from '../approvals-http/support.ts';
import { FixedClock, seedRun, seedWorkflow, testStore } from '../support/store.ts';
import { reviewGraph } from './fixtures.ts';

const store = testStore();
const MANAGER = 'manager@example.com';

/** ~151,000 evaluation steps (under one evaluation's 250,000): two do not fit in one try's 300,000. */
const heavy = (n: number) =>
  `$sum($map([1..150], function($v){ $sum($map([1..1000], function($w){ $w })) })) + ${n}`;

/**
 * A run of a graph whose `review` human task shows `context`, started as far as the task's wait. `saved` are
 * the paths the definition is saved with; `context` replaces them when the wait reads the definition (a
 * definition saved before a save-time check refused one of them).
 */
async function waitingRun(input: Record<string, unknown>, saved: string[], context = saved) {
  const clock = new FixedClock();
  const { version } = await seedWorkflow(store, reviewGraph('context-paths', MANAGER, { context: saved }), {
    clock,
  });
  const run = await seedRun(store, version, { clock, input });
  const definitions = graphDefinitions(store);
  const definitionOf: GraphDefinitionOf = async (of) => {
    const definition = await definitions(of);
    const nodes = definition.nodes.map((node) => (node.id === 'review' ? { ...node, context } : node));
    return { ...definition, nodes } as typeof definition;
  };
  expect(await advanceGraphRun({ store, definitionOf, clock }, run.runId)).toMatchObject({ next: 'steps' });
  const inbox = inboxNotifier();
  const taskTokens = { sendSuccess: async () => 'sent' as const, sendFailure: async () => 'sent' as const };
  const humanTasks = humanTaskPort({
    store,
    clock,
    keyring,
    publicBaseUrl: PUBLIC_BASE,
    taskTokens,
    logger: recordingLogger(),
    notifier: inbox,
  });
  const wait = () =>
    startHumanTaskWait(
      { store, definitionOf, clock, humanTasks },
      { runId: run.runId, stepId: 'review', type: 'human_task', attempt: 1, taskToken: 'token-1' },
    );
  const taskId = humanTaskId(run.runId, 'review', 1);
  /** Nothing of the wait was written: no task, no link, the step not waiting and holding no token. */
  const nothingWritten = async () => {
    expect(await store.getHumanTask(taskId)).toBeUndefined();
    expect(inbox.notices()).toEqual([]);
    const step = (await store.loadGraphRun(run.runId))!.steps.find((s) => s.stepId === 'review')!;
    expect(step.status).toBe('running');
    expect(step.taskToken).toBeUndefined();
  };
  return { wait, taskId, nothingWritten };
}

describe("a human task's context, evaluated by its wait", () => {
  it('stores each path with its value: JSON as it is, a missing value as nothing, a long one shortened', async () => {
    const s = await waitingRun(
      { message: 'Refund <#42> & thanks', order: { id: 42 }, long: 'x'.repeat(5000) },
      ['input.message', 'input.order', 'input.nothing', 'input.long'],
    );
    expect(await s.wait()).toBe('human_task_requested');
    const task = await store.getHumanTask(s.taskId);
    expect(task?.context).toEqual([
      { path: 'input.message', value: 'Refund <#42> & thanks' },
      { path: 'input.order', value: { id: 42 } },
      { path: 'input.nothing' },
      { path: 'input.long', value: `"${'x'.repeat(3998)}…`, truncated: true },
    ]);
  });

  it('fails the wait, naming the step, when a path passes a bound; nothing is written', async () => {
    // Unbounded, `$pad` would make a 2,000,000-character string (past EXPRESSION_LIMITS.maxResultBytes).
    const s = await waitingRun({ message: 'aa', count: 2_000_000 }, [
      'input.message',
      '$pad("x", input.count)',
    ]);
    await expect(s.wait()).rejects.toThrow(TemplateRenderError);
    await expect(s.wait()).rejects.toThrow(/^step review context: /);
    await s.nothingWritten();
  });

  it('runs regex literals on RE2: one only a backtracking engine runs fails the wait; nothing is written', async () => {
    // Refused at save time (GRAPH_REGEX_UNSUPPORTED); a definition saved before that check meets it here.
    // Unbounded, V8 would run the backreference and answer "aa".
    const s = await waitingRun(
      { message: 'aa' },
      ['input.message'],
      ['input.message', '$match(input.message, /(a)\\1/).match'],
    );
    await expect(s.wait()).rejects.toThrow(TemplateRenderError);
    await s.nothingWritten();
  });

  // The paths of one try share one step allowance (EXPRESSION_LIMITS.maxStepsPerInvocation, 300,000), in
  // order: 20 paths of ~151,000 steps each would otherwise take ~3,000,000 steps in one HumanTask invocation.
  it('evaluates the paths one after the other from one allowance: a path past it fails the wait', async () => {
    const s = await waitingRun({ message: 'hi' }, [heavy(1), heavy(2), 'input.message']);
    await expect(s.wait()).rejects.toThrow(TemplateRenderError);
    await s.nothingWritten();
  });
});
