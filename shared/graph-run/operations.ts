/**
 * Operator controls of a graph run (docs/graph-workflows.md, "Running a graph"), each owner-fenced (a foreign
 * run answers like a missing one: undefined) and each a conditional commit with an audit entry:
 * - pause: no new step starts; running steps finish; the execution then waits (AwaitResume) on a task token;
 * - resume: clears the pause and answers that wait;
 * - retry a failed step: the failed run is reopened, that step alone goes back to pending, and a fresh
 *   execution runs it in its next attempt (nothing downstream had started: a failure halts the run); on a run
 *   still running only while another step runs or waits (else 409: the run is ending), never past the deadline;
 * - cancel (cancelGraphSteps, after shared/runs cancelRun ended the run and stopped its execution): running
 *   child runs are cancelled, waiting human tasks closed, every unfinished step recorded `cancelled`, and the
 *   run's final head anchored again (shared/store/anchors.ts).
 */
import { isoAt, RunHandle } from '../core/engine.ts';
import type { Clock } from '../core/ports.ts';
import { derivedExecutionName } from '../runs/execution-name.ts';
import type { ExecutionsPort } from '../runs/ports.ts';
import type { GraphStep } from '../schemas/graph-step.ts';
import { isTerminalRunStatus, type Run } from '../schemas/run.ts';
import { isConflict } from './advance.ts';
import type { HumanTaskPort } from './human-task-port.ts';
import type { GraphRunStore } from './ports.ts';
import { moveStep } from './step-writes.ts';

export type GraphOperationsDeps = {
  store: GraphRunStore;
  executions: ExecutionsPort;
  clock: Clock;
  /** Answers a paused execution's AwaitResume wait. */
  taskTokens: { sendSuccess(token: string, output: object): Promise<unknown> };
  humanTasks?: HumanTaskPort | undefined;
};

export type GraphOperation = 'pause' | 'resume' | 'retry_step' | 'cancel';

/** The run cannot take this operation now (a 409 naming why). */
export class GraphOperationError extends Error {
  override readonly name = 'GraphOperationError';
}

type Target = { owner: string; runId: string; actor: string };

/** Loads an owner's graph run (undefined: missing or foreign) and applies `change` with conflict retries. */
async function operate<T>(
  deps: GraphOperationsDeps,
  target: Target,
  change: (run: Run, steps: GraphStep[]) => Promise<T>,
): Promise<T | undefined> {
  for (let round = 1; ; round++) {
    // The owner is checked on the first page: a foreign run costs what a missing one does (steps.ts).
    const loaded = await deps.store.loadGraphRun(target.runId, { owner: target.owner });
    if (!loaded || loaded.run.owner !== target.owner) return undefined;
    if (loaded.run.kind !== 'graph') throw new GraphOperationError(`run ${target.runId} is not a graph run`);
    try {
      return await change(loaded.run, loaded.steps);
    } catch (error) {
      if (!isConflict(error) || round >= 5) throw error;
    }
  }
}

const opAudit = (operation: GraphOperation, actor: string, data: Record<string, unknown> = {}) => ({
  type: 'graph_operation' as const,
  actor,
  data: { operation, ...data },
});

export function pauseGraphRun(deps: GraphOperationsDeps, target: Target): Promise<Run | undefined> {
  return operate(deps, target, async (run) => {
    if (isTerminalRunStatus(run.status)) throw new GraphOperationError(`the run has ended (${run.status})`);
    if (run.paused) return run;
    return new RunHandle(run, deps).commit({
      next: (current) => ({ ...current, paused: true }),
      audit: [opAudit('pause', target.actor)],
    });
  });
}

export async function resumeGraphRun(deps: GraphOperationsDeps, target: Target): Promise<Run | undefined> {
  const resumed = await operate(deps, target, async (run) => {
    if (!run.paused) {
      // Not paused, yet a wait is not known to be answered: an earlier resume cleared the flag and then
      // failed to answer it (or the execution is answering it itself). Asking again finishes that resume.
      if (!isTerminalRunStatus(run.status) && (await deps.store.getResumeToken(run.runId))) return run;
      throw new GraphOperationError('the run is not paused');
    }
    return new RunHandle(run, deps).commit({
      next: ({ paused: _paused, ...current }) => current,
      audit: [opAudit('resume', target.actor)],
    });
  });
  // The execution stores its token before it checks the flag; this clears the flag before it reads the
  // token: one of the two always sees the other, so no resume is lost. A closed token is fine. The wait is
  // marked answered only once the answer got through, so a failed answer can be retried by resuming again.
  const token = resumed && (await deps.store.getResumeToken(resumed.runId));
  if (token) {
    await deps.taskTokens.sendSuccess(token, {});
    await deps.store.settleResumeToken(resumed.runId, token);
  }
  return resumed;
}

export async function retryGraphStep(
  deps: GraphOperationsDeps,
  target: Target & { stepId: string },
): Promise<Run | undefined> {
  const reopened = await operate(deps, target, async (run, steps) => {
    const step = steps.find((candidate) => candidate.stepId === target.stepId);
    if (run.status !== 'failed' && run.status !== 'running')
      throw new GraphOperationError(`the run is ${run.status}; only a failed run's step can be retried`);
    if (step?.status !== 'failed' && !(run.status === 'failed' && step && isUnstartedRetry(step)))
      throw new GraphOperationError(`step ${target.stepId} has not failed`);
    // Past its deadline a run starts nothing (decide.ts): the retried step would end it `timeout` at once.
    if (deps.clock.nowMs() >= Date.parse(run.deadlineAt))
      throw new GraphOperationError(
        `the run passed its deadline (${run.deadlineAt}); a retried step could not start: start a new run`,
      );
    // A running run whose failed step no other step will outlast is ending: its execution's next Advance
    // decides `failed` (or already has), and MarkGraphFailed then ends the run whatever this retry wrote. The
    // retry is accepted only while a step still runs or waits, in a commit fenced on the run's revision (every
    // step change bumps it), so the Advance that follows that step sees the retried step pending and starts it.
    // A retried step not started yet counts as in flight: the run was reopened with a fresh execution for it
    // (two steps of a failed run retried one after the other), or, lost to the race above, it stays retryable.
    if (
      run.status === 'running' &&
      !steps.some((other) => isInFlight(other.status) || isUnstartedRetry(other))
    )
      throw new GraphOperationError('the run is ending; retry once it has failed');
    const back = moveStep({
      runId: run.runId,
      stepId: step.stepId,
      type: step.type as GraphStep['type'] & 'service_task',
      current: step,
      status: 'pending',
      at: isoAt(deps.clock),
      // A new attempt: its own start, input and (a human task's) window.
      // Nothing of the failed attempt is kept: its output, its timeout, its approval are not this attempt's.
      fields: {
        error: undefined,
        taskToken: undefined,
        endedAt: undefined,
        childRunId: undefined,
        childExecutionArn: undefined,
        startedAt: undefined,
        input: undefined,
        output: undefined,
        timedOut: undefined,
        approvalId: undefined,
      },
      reason: `retried by ${target.actor}`,
    });
    // The new execution's name is known now, and so (on Step Functions) its ARN: recorded in the reopen commit
    // itself, so a late FAILED event of the execution this attempt replaces is no longer the run's current one
    // (shared/runs/execution-ended.ts isCurrentExecution) and cannot end the reopened run.
    const attempt = step.attempt + 1;
    const nextArn =
      run.status === 'failed'
        ? deps.executions.arnOf?.('graph', derivedExecutionName(run.runId, 'retry', step.stepId, attempt))
        : undefined;
    const next = await new RunHandle(run, deps).commit({
      steps: [back.write],
      ...(run.status === 'failed' ? { reopen: true as const } : {}),
      next: ({
        error: _error,
        endedAt: _endedAt,
        stopReason: _stopReason,
        delivery: _delivery,
        ...current
      }) => ({
        ...current,
        status: 'running',
        ...(nextArn !== undefined ? { executionArn: nextArn } : {}),
      }),
      audit: [opAudit('retry_step', target.actor, { stepId: step.stepId, attempt }), back.audit],
    });
    return { run: next, attempt, wasFailed: run.status === 'failed' };
  });
  if (!reopened) return undefined;
  if (!reopened.wasFailed) return reopened.run;
  // The failed run's execution has ended: a fresh one runs the step (named per attempt: a retried request
  // starts the same execution).
  const graph = deps.executions.graph;
  if (!graph) throw new GraphOperationError('no graph state machine is configured');
  // A 40-character step id would make `<runId>-retry-<stepId>-<n>` longer than the 80 characters AWS takes.
  const name = derivedExecutionName(target.runId, 'retry', target.stepId, reopened.attempt);
  const { executionArn } = await graph.start(name, { runId: target.runId });
  return recordExecution(deps, reopened.run, executionArn);
}

const isInFlight = (status: GraphStep['status']): boolean => status === 'running' || status === 'waiting';

/**
 * A step an earlier retry set back to pending (attempt ≥ 1) that never started: the run failed for another
 * reason before an Advance could start it (a Map iteration failing for good, a pause that timed out). On a
 * failed run it is retried like a failed step, so an accepted retry is never lost for good.
 */
const isUnstartedRetry = (step: GraphStep): boolean =>
  step.status === 'pending' && step.attempt >= 1 && step.startedAt === undefined;

/** Records the started execution's ARN on the run; nothing to write when the reopen commit already did. */
async function recordExecution(deps: GraphOperationsDeps, run: Run, executionArn: string): Promise<Run> {
  if (run.executionArn === executionArn) return run;
  try {
    return await deps.store.commit({ run, next: { ...run, executionArn } });
  } catch (error) {
    if (!isConflict(error)) throw error;
    return (await deps.store.getRun(run.runId)) ?? run;
  }
}

/**
 * After a graph run was cancelled: its child runs are cancelled (through `cancelChild`, the run service's own
 * cancel), its waiting human tasks closed, and every step still running or waiting recorded `cancelled`.
 */
export async function cancelGraphSteps(
  deps: GraphOperationsDeps,
  run: Run,
  cancelChild: (childRunId: string) => Promise<unknown>,
): Promise<void> {
  const loaded = await deps.store.loadGraphRun(run.runId);
  if (!loaded) return;
  const open = loaded.steps.filter((step) => step.status === 'running' || step.status === 'waiting');
  for (const step of open) {
    if (step.childRunId) await cancelChild(step.childRunId);
    if (step.type === 'human_task')
      await deps.humanTasks?.close({ owner: run.owner, runId: run.runId, stepId: step.stepId });
  }
  if (open.length === 0) return;
  // Closing a human task committed on the run (its audit entry), so the steps are recorded on a fresh read.
  await operate(deps, { owner: run.owner, runId: run.runId, actor: 'system' }, async (current, steps) => {
    const at = isoAt(deps.clock);
    const moves = steps
      .filter((step) => step.status === 'running' || step.status === 'waiting')
      .map((step) =>
        moveStep({
          runId: run.runId,
          stepId: step.stepId,
          type: step.type as GraphStep['type'] & 'service_task',
          current: step,
          status: 'cancelled',
          at,
          fields: { taskToken: undefined },
          reason: 'the run was cancelled',
        }),
      );
    if (moves.length === 0) return;
    const ended = await new RunHandle(current, deps).commit({
      steps: moves.map((move) => move.write),
      audit: moves.map((move) => move.audit),
    });
    // The cancel anchored the run when it ended it; these entries came after: anchor the final head.
    await deps.store.anchorRunHead(ended, isoAt(deps.clock));
  });
}
