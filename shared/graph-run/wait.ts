/**
 * The waits of a graph run (`lambda:invoke.waitForTaskToken`): an `agent_task` starts a child agent run, an
 * `external_task` a child external run (external-child.ts) — both in graph-wait —, a `human_task` requests a
 * human task (in the human-task function, the only one of the two that holds the link-signing key). Each stores
 * the wait's task token on the step first, so whoever ends the wait (the child run's end, the task's submit)
 * finds it; a retried wait (a later attempt of the state) replaces the token, a late invocation of an earlier
 * attempt never does (wait-fence.ts).
 */
import { sha256Hex } from '../audit/index.ts';
import { isoAt, RunHandle } from '../core/engine.ts';
import type { FirstTurnPlanning } from '../core/first-reservation.ts';
import type { Clock, Ids } from '../core/ports.ts';
import { RunConflictError } from '../core/store-errors.ts';
import type { StepAllowance } from '../graph/expression-bounds.ts';
import { invocationSteps } from '../graph/expressions.ts';
import type { ExecutionsPort } from '../runs/ports.ts';
import { startExecutionFor } from '../runs/start-run.ts';
import type { GraphStep } from '../schemas/graph-step.ts';
import { isTerminalRunStatus, type Run } from '../schemas/run.ts';
import type { NewRun } from '../store/runs.ts';
import { isConflict } from './advance.ts';
import { agentChildRun } from './agent-child.ts';
import type { AgentTaskNode, HumanTaskNode } from './agent-view.ts';
import { renderArgs } from './expressions.ts';
import { externalChildRun } from './external-child.ts';
import type { HumanTaskPort } from './human-task-port.ts';
import { humanTaskWindowEnd } from './human-window.ts';
import { childAnswer } from './parent-answer.ts';
import type { GraphDefinitionOf, GraphRunStore, StepRef } from './ports.ts';
import { runDataOf, stepViews } from './run-data.ts';
import { moveStep } from './step-writes.ts';
import { isLaterWait, type WaitAttempt, waitFence } from './wait-fence.ts';

export type GraphWaitDeps = {
  store: GraphRunStore & { createRun(created: NewRun): Promise<{ run: Run; created: boolean }> };
  definitionOf: GraphDefinitionOf;
  clock: Clock;
  ids: Ids;
  executions: ExecutionsPort;
  /** What a child agent run's turn 0 reservation is estimated from (runs/first-turn.ts); default: the engine's. */
  firstTurn?: FirstTurnPlanning;
  /** Answers a wait at once: the child had already ended (a retried wait), or the run was already resumed. */
  answer: (token: string, output: object) => Promise<unknown>;
};

/** A wait's step, its token and (from the state machine) which attempt of the state stored it (wait-fence.ts). */
export type StepWait = StepRef & { taskToken: string; wait?: WaitAttempt | undefined };

/** The child run of a step attempt: one id, so a retried wait finds the run it started. */
export const childRunIdFor = (runId: string, stepId: string, attempt: number): string =>
  `run_${sha256Hex('wf-graph-child/v1\n', runId, '\n', stepId, '\n', String(attempt)).slice(0, 32)}`;

/** The step, run and node a wait acts on, while the step still waits in this attempt. */
type WaitingStep = {
  run: Run;
  /** This attempt's fence, stored on the step (and the human task) with its token. */
  fence: string | undefined;
  step: GraphStep;
  definition: Awaited<ReturnType<GraphDefinitionOf>>;
  node: Awaited<ReturnType<GraphDefinitionOf>>['nodes'][number] | undefined;
  steps: GraphStep[];
};

/** Runs `act` on the waiting step; a write that moved the run meanwhile makes it read and act again. */
async function onWaitingStep(
  deps: Pick<GraphWaitDeps, 'store' | 'definitionOf'>,
  wait: StepWait,
  act: (waiting: WaitingStep) => Promise<string>,
): Promise<string> {
  for (let round = 1; ; round++) {
    const loaded = await deps.store.loadGraphRun(wait.runId);
    if (!loaded || isTerminalRunStatus(loaded.run.status)) return 'ended';
    const step = loaded.steps.find((candidate) => candidate.stepId === wait.stepId);
    if (!step || step.attempt !== wait.attempt || (step.status !== 'running' && step.status !== 'waiting'))
      return 'stale';
    // A later attempt of this wait stored its token: this attempt failed (its token is dead) and must not
    // replace it. The check and the write are one: the write is fenced on the run's revision, which every step
    // write moves, so a later attempt's write in between makes this one read again and stop here.
    const fence = wait.wait === undefined ? undefined : waitFence(step.attempt, wait.wait);
    if (isLaterWait(step.waitFence, fence)) return 'superseded';
    const definition = await deps.definitionOf(loaded.run);
    const node = definition.nodes.find((candidate) => candidate.id === wait.stepId);
    try {
      return await act({ run: loaded.run, fence, step, definition, node, steps: loaded.steps });
    } catch (error) {
      if (!isConflict(error) || round >= 5) throw error;
    }
  }
}

/**
 * `AgentTask`, `ExternalTask` (graph-wait): starts the step's child run. A human task is not this function's:
 * `HumanTask` invokes the human-task function (`startHumanTaskWait`), which alone holds the signing key.
 */
export function startStepWait(deps: GraphWaitDeps, wait: StepWait): Promise<string> {
  return onWaitingStep(deps, wait, async ({ run, fence, step, definition, node }) => {
    const token = { taskToken: wait.taskToken, ...(fence === undefined ? {} : { waitFence: fence }) };
    if (node?.type === 'agent_task')
      return startChild(deps, run, step, token, (childRunId) =>
        agentChildRun(deps, definition, run, step, node, childRunId),
      );
    if (node?.type === 'external_task')
      return startChild(deps, run, step, token, (childRunId) =>
        externalChildRun(deps, definition, run, step, node, childRunId),
      );
    throw new Error(`step ${wait.stepId} does not wait on a child run`);
  });
}

/** What a human task's wait needs: the run and its definition, and the human-task service. */
export type HumanTaskWaitDeps = Pick<GraphWaitDeps, 'store' | 'definitionOf' | 'clock'> & {
  humanTasks: HumanTaskPort;
};

/**
 * `HumanTask` (the human-task function): records the wait on the step, then opens the task and sends the links
 * through the human-task service. The context paths are evaluated on every try (the run data may have moved),
 * each try's from what the tries before it left of the invocation's steps (invocationSteps()).
 */
export function startHumanTaskWait(deps: HumanTaskWaitDeps, wait: StepWait): Promise<string> {
  const invocation = invocationSteps();
  return onWaitingStep(deps, wait, async ({ run, fence, step, definition, node, steps }) => {
    if (node?.type !== 'human_task') throw new Error(`step ${wait.stepId} is not a human task`);
    const data = runDataOf(run.input, stepViews(definition, steps, run.input));
    const token = { taskToken: wait.taskToken, fence };
    return requestHuman(deps, run, step, node, token, data, invocation.decision());
  });
}

async function recordWait(
  deps: Pick<GraphWaitDeps, 'store' | 'clock'>,
  run: Run,
  step: GraphStep,
  fields: Partial<GraphStep>,
) {
  const move = moveStep({
    runId: run.runId,
    stepId: step.stepId,
    type: step.type as GraphStep['type'] & AgentTaskNode['type'],
    current: step,
    status: 'waiting',
    at: isoAt(deps.clock),
    fields,
  });
  return new RunHandle(run, deps).commit({
    steps: [move.write],
    ...(step.status === 'waiting' ? {} : { audit: [move.audit] }),
  });
}

/**
 * Creates the step attempt's child run once (its id is derived from the attempt), records the wait, and starts
 * the child's execution on the state machine of its kind. A child that had already ended answers at once.
 */
async function startChild(
  deps: GraphWaitDeps,
  run: Run,
  step: GraphStep,
  wait: { taskToken: string; waitFence?: string },
  prepare: (childRunId: string) => NewRun,
) {
  const token = wait.taskToken;
  const childRunId = childRunIdFor(run.runId, step.stepId, step.attempt);
  let child = await deps.store.getRun(childRunId);
  if (!child) child = (await deps.store.createRun(prepare(childRunId))).run;
  // An agent child's execution, for stopping it when the step gives up on it (end-children.ts).
  const childExecutionArn =
    child.kind === 'agent' ? deps.executions.arnOf?.(child.kind, childRunId) : undefined;
  await recordWait(deps, run, step, {
    ...wait,
    childRunId,
    ...(childExecutionArn ? { childExecutionArn } : {}),
  });
  if (isTerminalRunStatus(child.status)) {
    await deps.answer(token, childAnswer(child));
    return 'answered';
  }
  // Only a pending child can be unstarted (its execution is what moves it); an earlier release recorded the ARN.
  if (!child.executionArn && child.status === 'pending') {
    // Idempotent by name (the child run id): a retried wait starts the same execution.
    const { executionArn } = await startExecutionFor(deps.executions, child, childRunId);
    // Named after the child run, its ARN is derived (shared/runs/execution-arn.ts): nothing to record, and no
    // write to race the child's first commit.
    if (deps.executions.arnOf?.(child.kind, child.runId) === executionArn) return 'child_started';
    try {
      await deps.store.commit({ run: child, next: { ...child, executionArn } });
    } catch (error) {
      // The child's first step moved it first: the arn is a convenience for cancelling, read again later.
      if (!(error instanceof RunConflictError)) throw error;
    }
  }
  return 'child_started';
}

async function requestHuman(
  deps: HumanTaskWaitDeps,
  run: Run,
  step: GraphStep,
  node: HumanTaskNode,
  wait: { taskToken: string; fence: string | undefined },
  data: ReturnType<typeof runDataOf>,
  allowance: StepAllowance,
) {
  const context: Record<string, unknown> = {};
  for (const path of node.context)
    context[path] = await renderArgs(`step ${step.stepId} context`, `{{ ${path} }}`, data, allowance);
  const expiresAt = humanTaskWindowEnd(step, node.timeoutSeconds, deps.clock.nowMs());
  const fenced = wait.fence === undefined ? {} : { waitFence: wait.fence };
  await recordWait(deps, run, step, { taskToken: wait.taskToken, ...fenced, input: { context, expiresAt } });
  await deps.humanTasks.request({
    ...fenced,
    owner: run.owner,
    runId: run.runId,
    stepId: step.stepId,
    attempt: step.attempt,
    workflowId: run.workflowId,
    workflowName: run.workflowName,
    taskToken: wait.taskToken,
    title: node.title,
    assignees: node.assignees,
    form: node.form,
    context,
    expiresAt,
  });
  return 'human_task_requested';
}

/**
 * `AwaitResume`: a paused run's execution waits here. The token is stored first, then the pause is checked:
 * a resume that came in between (or before this state was reached) is answered at once, as resume clears the
 * flag first, then reads the token: one of the two always sees the other. An answered wait is marked, so a
 * later resume knows nothing is left waiting.
 *
 * The token is stored unless a later attempt of this wait (or a later wait) stored its own (wait-fence.ts):
 * a late invocation of a retried attempt then does nothing (`superseded`), its token being dead, and the live
 * one stays for the resume to answer.
 */
export async function awaitResume(
  deps: Pick<GraphWaitDeps, 'store' | 'answer'>,
  wait: { runId: string; taskToken: string; rev?: number | undefined; wait?: WaitAttempt | undefined },
): Promise<string> {
  const fence =
    wait.rev === undefined || wait.wait === undefined ? undefined : waitFence(wait.rev, wait.wait);
  if ((await deps.store.putResumeToken(wait.runId, wait.taskToken, fence)) === 'superseded')
    return 'superseded';
  const run = await deps.store.getRun(wait.runId);
  if (run?.paused && !isTerminalRunStatus(run.status)) return 'waiting_for_resume';
  await deps.answer(wait.taskToken, {});
  await deps.store.settleResumeToken(wait.runId, wait.taskToken);
  return 'resumed';
}
