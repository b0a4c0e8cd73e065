/**
 * `decideNext`: applies the plan (plan.ts) to a graph run it has just read: records skipped steps and reached
 * ends, marks agent and human steps `running` (a service step marks itself, in the same write as its pending
 * ledger row), and says where the state machine goes. One commit at most, fenced on the run's `rev` and on
 * each step's status and attempt, so a second writer cannot start a step twice.
 */
import { cutText } from '../core/byte-caps.ts';
import { isoAt, RunHandle } from '../core/engine.ts';
import type { Clock } from '../core/ports.ts';
import { storedError } from '../core/stored-error.ts';
import type { GraphDefinition } from '../graph/definition.ts';
import { InvocationStepsSpentError, type StepAllowance } from '../graph/expression-bounds.ts';
import { invocationAllowance } from '../graph/expressions.ts';
import type { GraphStep } from '../schemas/graph-step.ts';
import type { Run } from '../schemas/run.ts';
import { renderPrompt } from './expressions.ts';
import { externalWaitSeconds, startExternalStep } from './external-start.ts';
import { humanTaskWindowEnd } from './human-window.ts';
import { type Plan, planRun } from './plan.ts';
import type { GraphNext, GraphRunStore, StepRef } from './ports.ts';
import { runDataOf, stepViews } from './run-data.ts';
import { moveStep, type StepMove, writesOf } from './step-writes.ts';

export type DecideDeps = { store: Pick<GraphRunStore, 'commit'>; clock: Clock };

/** The run's result: the structured outputs of its steps, by step id (what Deliver sends). */
export function graphResultText(steps: readonly GraphStep[]): string {
  const outputs = Object.fromEntries(
    steps.filter((step) => step.output !== undefined).map((step) => [step.stepId, step.output]),
  );
  return cutText(JSON.stringify(outputs), 100_000);
}

/**
 * `allowance`: the evaluation steps this decision's expressions may take together (a fresh
 * EXPRESSION_LIMITS.maxStepsPerInvocation unless given): the conditions first, then the templates of the steps
 * it starts, in order. The decision that follows steps failing as they started shares it: its outcome is
 * `StepFailed` whatever its conditions give, so it adds nothing to one decision's worst case. A decision made
 * again after a write conflict (advance.ts) takes a fresh one, so the same data stops at the same edge, drawn
 * from the same invocation's steps (InvocationSteps): when the tries before it left too few, its evaluation
 * throws InvocationStepsSpentError and nothing is committed from it.
 */
export async function decideNext(
  deps: DecideDeps,
  run: Run,
  steps: readonly GraphStep[],
  definition: GraphDefinition,
  allowance: StepAllowance = invocationAllowance(),
): Promise<GraphNext> {
  // The run's deadline (budget.runTimeoutSeconds, stamped as deadlineAt when it was created) bounds what
  // starts: past it, paused or not, a run with a step to start or to re-drive ends failed (timeout); one that
  // is complete, halted or stuck ends as it would have.
  const pastDeadline = deps.clock.nowMs() >= Date.parse(run.deadlineAt);
  if (run.paused && !pastDeadline) return { next: 'paused', rev: run.rev };
  const plan = await planRun(definition, run.input, steps, allowance);
  const at = isoAt(deps.clock);
  if (pastDeadline && (plan.start.length > 0 || plan.inFlight.length > 0))
    return timedOut(deps, run, plan, at);
  const byId = new Map(steps.map((step) => [step.stepId, step]));
  const nodeById = new Map(definition.nodes.map((node) => [node.id, node]));
  const move = (stepId: string, status: GraphStep['status'], fields?: Partial<GraphStep>, reason?: string) =>
    moveStep({
      runId: run.runId,
      stepId,
      type: nodeById.get(stepId)?.type ?? 'end',
      current: byId.get(stepId),
      status,
      at,
      ...(fields ? { fields } : {}),
      ...(reason ? { reason } : {}),
    });
  const moves: StepMove[] = [
    ...plan.skip.map((id) => move(id, 'skipped')),
    ...plan.endsReached.map((id) => move(id, 'succeeded', { attempt: 1 })),
  ];
  const commit = async (next?: (current: Run) => Run, extra: StepMove[] = []) => {
    const all = [...moves, ...extra];
    if (all.length === 0 && !next && run.status !== 'pending') return run;
    const handle = new RunHandle(run, deps);
    return handle.commit({
      ...writesOf(all),
      next: (current) => {
        const started: Run = current.status === 'pending' ? { ...current, status: 'running' } : current;
        return next ? next(started) : started;
      },
      ...(run.status === 'pending'
        ? {
            audit: [
              ...writesOf(all).audit,
              { type: 'status_changed', actor: 'system', data: { from: 'pending', to: 'running' } },
            ],
          }
        : {}),
    });
  };

  // Steps still running or waiting when Advance runs belong to an execution that is gone (a restart, a
  // resume): run them again in their attempt. The ledger, the child run id and the human task are per attempt,
  // so nothing is done twice.
  const redrive: StepRef[] = plan.inFlight.map((id) => {
    const step = byId.get(id)!;
    const node = nodeById.get(id);
    return {
      runId: run.runId,
      stepId: id,
      type: step.type as StepRef['type'],
      attempt: step.attempt,
      ...(node?.type === 'human_task'
        ? { timeoutSeconds: humanSecondsLeft(step, node.timeoutSeconds, deps.clock) }
        : {}),
      ...(node?.type === 'external_task'
        ? { timeoutSeconds: secondsLeft(step, externalWaitSeconds(node.timeoutSeconds), deps.clock) }
        : {}),
    };
  });
  if (plan.halt) {
    await commit();
    if (redrive.length > 0) return { next: 'steps', steps: redrive };
    const name = plan.halt.reason === 'condition_error' ? 'ConditionError' : 'StepFailed';
    return {
      next: 'failed',
      error: { Error: name, Cause: JSON.stringify({ errorMessage: plan.halt.message }) },
    };
  }

  const data = runDataOf(run.input, stepViews(definition, steps, run.input));
  const refs: StepRef[] = [...redrive];
  const starts: StepMove[] = [];
  for (const id of plan.start) {
    const node = nodeById.get(id);
    if (!node) continue;
    // An operator's retry set a failed step back to pending: it starts its next attempt.
    const attempt = (byId.get(id)?.attempt ?? 0) + 1;
    if (node.type === 'service_task') refs.push({ runId: run.runId, stepId: id, type: node.type, attempt });
    else if (node.type === 'agent_task') {
      try {
        const prompt = await renderPrompt(`step ${id} prompt`, node.prompt, data, allowance);
        starts.push(move(id, 'running', { attempt, input: { prompt } }));
        refs.push({ runId: run.runId, stepId: id, type: node.type, attempt });
      } catch (error) {
        if (error instanceof InvocationStepsSpentError) throw error;
        const message = (error as Error).message;
        starts.push(
          move(id, 'failed', { attempt, error: { name: 'TemplateRenderError', message } }, message),
        );
      }
    } else if (node.type === 'human_task') {
      starts.push(move(id, 'running', { attempt }));
      refs.push({
        runId: run.runId,
        stepId: id,
        type: node.type,
        attempt,
        timeoutSeconds: node.timeoutSeconds,
      });
    } else if (node.type === 'external_task') {
      const started = await startExternalStep(node, attempt, data, allowance);
      starts.push(move(id, started.status, started.fields, started.reason));
      if (started.status === 'running')
        refs.push({
          runId: run.runId,
          stepId: id,
          type: node.type,
          attempt,
          timeoutSeconds: externalWaitSeconds(node.timeoutSeconds),
        });
    }
  }
  if (refs.length === 0 && starts.length > 0) {
    // Only steps that failed as they started (a template, mode off): the next decision fails the run.
    const fresh = await commit(undefined, starts);
    return decideNext(deps, fresh, mergeSteps(steps, starts), definition, allowance);
  }
  if (refs.length === 0) {
    if (plan.ended) {
      const all = mergeSteps(steps, moves);
      await commit(
        (current) => ({
          ...current,
          status: 'done',
          stopReason: 'end_turn',
          lastNext: 'done',
          result: { text: graphResultText(all) },
          endedAt: at,
        }),
        [],
      );
      return { next: 'done' };
    }
    await commit();
    return {
      next: 'failed',
      error: {
        Error: 'GraphStuck',
        Cause: JSON.stringify({ errorMessage: 'no step can run and no end was reached' }),
      },
    };
  }
  await commit(undefined, starts);
  const only = refs.length === 1 && redrive.length === 0 ? refs[0] : undefined;
  if (only?.type === 'service_task') return { next: 'service', step: only };
  return { next: 'steps', steps: refs };
}

/**
 * The run passed its deadline: ended `failed` (stop reason `timeout`, `RunTimedOut`) in one commit fenced on
 * its revision, and `failed` answered, so MarkGraphFailed tells the owner (it finds the run ended and returns
 * it) and cancels the children of steps still running or waiting (shared/graph-run/end-children.ts), as for any
 * graph run that fails with steps in flight. Steps the plan would skip or start are left as they are.
 */
async function timedOut(deps: DecideDeps, run: Run, plan: Plan, at: string): Promise<GraphNext> {
  const left = [
    ...plan.inFlight.map((id) => `${id} (in flight)`),
    ...plan.start.map((id) => `${id} (not started)`),
  ];
  const message = `the run passed its deadline (${run.deadlineAt}) before it reached an end; steps left: ${left.join(', ')}`;
  // Bounded as stored (a graph of many steps names them all): the audit entry quotes what the run holds.
  const error = storedError({ name: 'RunTimedOut', message });
  await new RunHandle(run, deps).commit({
    next: (current) => ({
      ...current,
      status: 'failed',
      stopReason: 'timeout',
      error,
      endedAt: at,
      lastNext: 'failed',
      pendingApprovalIds: [],
    }),
    audit: [
      { type: 'error', actor: 'system', data: error },
      {
        type: 'status_changed',
        actor: 'system',
        data: { from: run.status, to: 'failed', stopReason: 'timeout' },
      },
    ],
  });
  return {
    next: 'failed',
    error: { Error: error.name, Cause: JSON.stringify({ errorMessage: error.message }) },
  };
}

/** The step items after `moves` (for deciding again without reading). */
export function mergeSteps(steps: readonly GraphStep[], moves: readonly StepMove[]): GraphStep[] {
  const byId = new Map(steps.map((step) => [step.stepId, step]));
  for (const move of moves) byId.set(move.write.step.stepId, move.write.step);
  return [...byId.values()];
}

/** A re-driven external step waits only what is left of its window (at least 1 s: then it times out at once). */
export function secondsLeft(step: GraphStep, timeoutSeconds: number, clock: Clock): number {
  const started = step.startedAt ? Date.parse(step.startedAt) : clock.nowMs();
  return Math.max(1, Math.ceil((started + timeoutSeconds * 1000 - clock.nowMs()) / 1000));
}

/** A re-driven human task waits what is left of the window its first wait recorded (a full one if none did). */
function humanSecondsLeft(step: GraphStep, timeoutSeconds: number, clock: Clock): number {
  const end = Date.parse(humanTaskWindowEnd(step, timeoutSeconds, clock.nowMs()));
  return Math.max(1, Math.ceil((end - clock.nowMs()) / 1000));
}
