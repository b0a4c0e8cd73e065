/**
 * A graph run that failed while some of its steps still ran (MarkGraphFailed after the machine's Catch: a Map
 * iteration that failed for good stops its siblings' waits, Advance failing for good, a lost resume): their
 * child runs are cancelled through the owner's cancel path, so no child keeps working for a run that ended.
 * - an external child: its cancel is requested (external/run/request-cancel.ts, as `POST /v1/runs/{id}/cancel`);
 *   its own execution asks the engine at its next step and records the three facts on the child run;
 * - an agent child: ended `cancelled` (core/end-run.ts, as the owner's cancel), then its current execution is
 *   stopped (StopExecution, as the owner's cancel does: a child waiting on an approval's task token would
 *   otherwise wait out the approval's timeout, https://docs.aws.amazon.com/step-functions/latest/apireference/API_StopExecution.html).
 *   mark-failed knows no state machine ARN (it is a task of the run machine: an environment variable naming
 *   that machine would be a CloudFormation cycle), so the ARN comes from the step (`childExecutionArn`,
 *   recorded by graph-wait) and the child run (its continuation, shared/runs/execution-arn.ts); a step
 *   recorded before this release, without it, leaves the execution to find the run ended at its next turn;
 * - a human task: closed through the human-task service's port (its wait's token dropped).
 * Each open wait (agent, external, human step) is then recorded `cancelled`, its audit entry saying what was
 * asked of its child and what is not known yet (whether the engine stopped: the child run records it).
 * Conditional writes; idempotent.
 */
import { endRun } from '../core/end-run.ts';
import { isoAt, RunHandle } from '../core/engine.ts';
import type { Clock } from '../core/ports.ts';
import { requestExternalCancel } from '../external/run/request-cancel.ts';
import { runExecutionArn, siblingExecutionArn } from '../runs/execution-arn.ts';
import type { ExecutionsPort } from '../runs/ports.ts';
import type { GraphStep } from '../schemas/graph-step.ts';
import { isTerminalRunStatus, type Run } from '../schemas/run.ts';
import { isConflict } from './advance.ts';
import type { HumanTaskExpiryPort } from './human-task-port.ts';
import type { GraphRunStore } from './ports.ts';
import { moveStep } from './step-writes.ts';

export type EndChildrenDeps = {
  store: Pick<GraphRunStore, 'loadGraphRun' | 'getRun' | 'commit' | 'anchorRunHead'> &
    Parameters<typeof endRun>[0]['store'];
  clock: Clock;
  /** Closes a waiting human task (shared/human-tasks/expiry.ts); without it the task is left to its expiry. */
  humanTasks?: Pick<HumanTaskExpiryPort, 'closeFailed'> | undefined;
  /** Stops an agent child's execution; without it the execution finds its run ended at its next turn. */
  executions?: Pick<ExecutionsPort, 'stop'> | undefined;
};

/** The current execution of `child`, the agent run of `step`: from the step's record and the child's own. */
export function agentChildExecutionArn(
  step: Pick<GraphStep, 'childExecutionArn'>,
  child: Run,
): string | undefined {
  const first = step.childExecutionArn;
  return runExecutionArn({ arnOf: (_kind, name) => first && siblingExecutionArn(first, name) }, child);
}

/**
 * Ends an open agent child run `cancelled` (audit `cancel_requested` by `system`, naming the parent step) and
 * stops its current execution. True when this call ended it; a child that had ended is left as it is.
 */
export async function cancelAgentChild(
  deps: Pick<EndChildrenDeps, 'store' | 'clock' | 'executions'>,
  step: Pick<GraphStep, 'runId' | 'stepId' | 'childExecutionArn'>,
  child: Run,
  why: string,
): Promise<boolean> {
  if (isTerminalRunStatus(child.status)) return false;
  const ended = await endRun(deps, {
    runId: child.runId,
    status: 'cancelled',
    stopReason: 'cancelled',
    why,
    actor: 'system',
    audit: [{ type: 'cancel_requested', actor: 'system', data: { parentRunId: step.runId, why } }],
  });
  if (ended?.status !== 'cancelled') return false;
  const executionArn = agentChildExecutionArn(step, ended);
  if (executionArn && deps.executions) await deps.executions.stop(executionArn, why);
  return true;
}

/** What was asked of one open step's child, and what is still unknown. */
export type ChildAsked = {
  stepId: string;
  childRunId?: string;
  kind?: string;
  asked: 'engine_cancel_requested' | 'cancelled' | 'task_closed' | 'nothing';
  unknown?: string;
};

async function askChild(deps: EndChildrenDeps, step: GraphStep, why: string): Promise<ChildAsked> {
  const base = { stepId: step.stepId };
  if (step.type === 'human_task' && deps.humanTasks) {
    // Its page already refuses (the run ended); closed, listings show it over too.
    await deps.humanTasks.closeFailed({ runId: step.runId, stepId: step.stepId, attempt: step.attempt }, why);
    return { ...base, asked: 'task_closed' };
  }
  if (!step.childRunId) return { ...base, asked: 'nothing' };
  const child = await deps.store.getRun(step.childRunId);
  const named = { ...base, childRunId: step.childRunId, ...(child?.kind ? { kind: child.kind } : {}) };
  if (!child || isTerminalRunStatus(child.status)) return { ...named, asked: 'nothing' };
  if (child.kind === 'external') {
    await requestExternalCancel(deps, child, 'system');
    return {
      ...named,
      asked: 'engine_cancel_requested',
      unknown: `whether the engine stopped: recorded on run ${child.runId} (external.cancel) once its execution asked`,
    };
  }
  await cancelAgentChild(deps, step, child, why);
  return { ...named, asked: 'cancelled' };
}

const reasonOf = (what: ChildAsked): string => {
  if (what.asked === 'task_closed') return 'its human task was closed';
  if (what.asked === 'nothing') return 'no running child to cancel';
  return `child run ${what.childRunId}: ${what.asked}`;
};

/** Cancels the children of a failed graph run's open steps and records those steps `cancelled`. */
export async function cancelChildrenOfFailedGraph(
  deps: EndChildrenDeps,
  runId: string,
): Promise<ChildAsked[]> {
  const why = 'the graph run failed';
  const loaded = await deps.store.loadGraphRun(runId);
  if (loaded?.run.kind !== 'graph' || loaded.run.status !== 'failed') return [];
  // The waits; a service step in flight is left to its own commits (its ledger row records what was sent).
  const open = (steps: GraphStep[]) =>
    steps.filter(
      (step) => step.type !== 'service_task' && (step.status === 'running' || step.status === 'waiting'),
    );
  const asked = new Map<string, ChildAsked>();
  for (const step of open(loaded.steps)) asked.set(step.stepId, await askChild(deps, step, why));
  // An agent step whose wait gave up on its child (AgentTask's 15-day `States.Timeout` backstop, a wait failing
  // for good) failed before the run did, and its child may still work, and spend, for a step that no longer
  // waits: it is cancelled and its execution stopped too (the step stays `failed`).
  for (const step of loaded.steps) {
    if (step.type !== 'agent_task' || step.status !== 'failed' || !step.childRunId) continue;
    const child = await deps.store.getRun(step.childRunId);
    if (child?.kind === 'agent')
      await cancelAgentChild(deps, step, child, `${why}; step ${step.stepId}'s wait ended`);
  }
  // Read again: closing a human task committed on the run (its audit entry).
  for (let round = 1, current = (await deps.store.loadGraphRun(runId)) ?? loaded; ; round++) {
    const moves = open(current.steps).map((step) => {
      const what = asked.get(step.stepId) ?? { stepId: step.stepId, asked: 'nothing' as const };
      const move = moveStep({
        runId,
        stepId: step.stepId,
        type: step.type as GraphStep['type'] & 'service_task',
        current: step,
        status: 'cancelled',
        at: isoAt(deps.clock),
        fields: { taskToken: undefined },
        reason: `${why}; ${reasonOf(what)}`,
      });
      return { ...move, audit: { ...move.audit, data: { ...move.audit.data, child: what } } };
    });
    if (moves.length === 0) return [...asked.values()];
    try {
      const ended = await new RunHandle(current.run, deps).commit({
        steps: moves.map((move) => move.write),
        audit: moves.map((move) => move.audit),
      });
      // The run was anchored when it ended; these entries came after: anchor the final head.
      await deps.store.anchorRunHead(ended, isoAt(deps.clock));
      return [...asked.values()];
    } catch (error) {
      if (!isConflict(error) || round >= 5) throw error;
      const again = await deps.store.loadGraphRun(runId);
      if (!again) return [...asked.values()];
      current = again;
    }
  }
}
