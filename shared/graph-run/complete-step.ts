/**
 * `CompleteStep`: records how an agent, human or external step's wait ended. The wait's answer
 * (`SendTaskSuccess`) is `{ output }` from a human task's submit, or `{ childRunId, status, text, … }` from a
 * child run's end (parent-answer.ts); a
 * `Catch` brings the error instead (`States.Timeout` for a human task → its `onTimeout` path). Conditional on
 * the step still running (or waiting) in this attempt, so a repeated completion changes nothing.
 * A human task's timeout first records its task `expired` (the human-task service, `HumanTaskExpiryPort`): its
 * links stop working and listings show it over; a submission recorded before the expiry wins and is the output.
 */
import { catchCauseMessage } from '../core/catch-cause.ts';
import { isoAt, RunHandle } from '../core/engine.ts';
import type { Clock } from '../core/ports.ts';
import { requestExternalCancel } from '../external/run/request-cancel.ts';
import type { GraphNode } from '../graph/definition.ts';
import type { GraphStep } from '../schemas/graph-step.ts';
import { isTerminalRunStatus } from '../schemas/run.ts';
import { isConflict } from './advance.ts';
import { externalStepOutcome } from './external-outcome.ts';
import { type HumanTaskExpiry, type HumanTaskExpiryPort, isHumanTaskTimeout } from './human-task-port.ts';
import type { GraphDefinitionOf, GraphRunStore, StepRef } from './ports.ts';
import { moveStep } from './step-writes.ts';
import { parseStructuredOutput } from './structured-output.ts';

export type CompleteStepDeps = {
  store: GraphRunStore;
  definitionOf: GraphDefinitionOf;
  clock: Clock;
  humanTasks: HumanTaskExpiryPort;
};

export type StepCompletion = StepRef & {
  result?: unknown;
  error?: { Error?: string | undefined; Cause?: string | undefined } | undefined;
};

type Outcome = Pick<GraphStep, 'status'> & Partial<GraphStep>;

const causeText = (cause: string | undefined): string => catchCauseMessage(cause, 'no reason given');

export function outcomeOf(node: GraphNode, completion: StepCompletion, expiry?: HumanTaskExpiry): Outcome {
  const { error, result } = completion;
  if (error) {
    if (node.type === 'human_task' && isHumanTaskTimeout(error)) {
      // The form was submitted first, but its answer could not reach the wait before the timer fired.
      if (expiry?.status === 'submitted') return { status: 'succeeded', output: expiry.output };
      if (node.onTimeout.action === 'continue')
        return { status: 'succeeded', output: node.onTimeout.output, timedOut: true };
      return {
        status: 'failed',
        timedOut: true,
        error: { name: 'TimedOut', message: 'no one completed the task in time' },
      };
    }
    if (node.type === 'external_task' && error.Error === 'States.Timeout')
      return {
        status: 'failed',
        error: { name: 'TimedOut', message: 'the external run did not end within the timeout of its step' },
      };
    return { status: 'failed', error: { name: error.Error ?? 'Error', message: causeText(error.Cause) } };
  }
  const answer = (result ?? {}) as {
    output?: unknown;
    status?: unknown;
    stopReason?: unknown;
    text?: unknown;
    childRunId?: unknown;
  };
  if (node.type === 'human_task') return { status: 'succeeded', output: answer.output ?? {} };
  if (node.type === 'external_task') return externalStepOutcome(node, answer);
  if (node.type === 'agent_task') {
    if (answer.status !== 'done') {
      // Why it stopped (`budget_exceeded`: the graph's or the day's ceiling refused its call) is the operator's cue.
      const why = typeof answer.stopReason === 'string' ? ` (${answer.stopReason})` : '';
      return {
        status: 'failed',
        error: { name: 'ChildRunEnded', message: `the child run ended ${String(answer.status)}${why}` },
      };
    }
    const parsed = parseStructuredOutput(String(answer.text ?? ''), node.output);
    return parsed.ok
      ? { status: 'succeeded', output: parsed.output }
      : { status: 'failed', error: { name: 'InvalidOutput', message: parsed.reason } };
  }
  return { status: 'failed', error: { name: 'UnsupportedStep', message: `${node.type} does not wait` } };
}

/** Asks the child external run to cancel its engine's execution (its own Observe does it); ended: nothing. */
async function cancelExternalChild(deps: CompleteStepDeps, childRunId: string): Promise<void> {
  const child = await deps.store.getRun(childRunId);
  if (child && !isTerminalRunStatus(child.status)) await requestExternalCancel(deps, child, 'system');
}

/**
 * A human task's wait that ended in an error: its task (this attempt's) is expired first when the wait timed
 * out, or closed when it failed otherwise, whatever the step's state (a stale attempt's task is as dead as its
 * wait), and before the step moves, so the page refuses from then on.
 */
async function endDeadTask(
  deps: CompleteStepDeps,
  completion: StepCompletion,
): Promise<HumanTaskExpiry | undefined> {
  if (completion.type !== 'human_task' || !completion.error) return undefined;
  const step = { runId: completion.runId, stepId: completion.stepId, attempt: completion.attempt };
  if (isHumanTaskTimeout(completion.error)) return deps.humanTasks.expire(step);
  await deps.humanTasks.closeFailed(step, completion.error.Error ?? 'error');
  return undefined;
}

/**
 * The completion with its child's text read from the child run when the answer could not carry it
 * (`textInStore`, parent-answer.ts): only for the child this step attempt waits on.
 */
async function withChildText(
  deps: CompleteStepDeps,
  step: GraphStep,
  completion: StepCompletion,
): Promise<StepCompletion> {
  const answer = completion.result as { textInStore?: unknown; childRunId?: unknown } | undefined;
  if (answer?.textInStore !== true || !step.childRunId || answer.childRunId !== step.childRunId)
    return completion;
  const child = await deps.store.getRun(step.childRunId);
  return { ...completion, result: { ...answer, text: child?.result?.text ?? '' } };
}

/** Records the completion; returns the step's status after it (or `unchanged`). */
export async function completeStep(deps: CompleteStepDeps, completion: StepCompletion): Promise<string> {
  const expiry = await endDeadTask(deps, completion);
  for (let round = 1; ; round++) {
    const loaded = await deps.store.loadGraphRun(completion.runId);
    if (!loaded || isTerminalRunStatus(loaded.run.status)) return 'unchanged';
    const step = loaded.steps.find((candidate) => candidate.stepId === completion.stepId);
    if (
      !step ||
      step.attempt !== completion.attempt ||
      (step.status !== 'running' && step.status !== 'waiting')
    )
      return 'unchanged';
    const definition = await deps.definitionOf(loaded.run);
    const node = definition.nodes.find((candidate) => candidate.id === completion.stepId);
    if (!node) return 'unchanged';
    const { status, ...fields } = outcomeOf(node, await withChildText(deps, step, completion), expiry);
    const move = moveStep({
      runId: loaded.run.runId,
      stepId: step.stepId,
      type: node.type,
      current: step,
      status,
      at: isoAt(deps.clock),
      fields: { ...fields, taskToken: undefined },
      ...(fields.error ? { reason: fields.error.message } : {}),
    });
    try {
      await new RunHandle(loaded.run, deps).commit({ steps: [move.write], audit: [move.audit] });
      // The wait ended without the child's answer (its backstop timeout): the engine's execution is cancelled.
      if (node.type === 'external_task' && completion.error && step.childRunId)
        await cancelExternalChild(deps, step.childRunId);
      // An agent step that stopped waiting (its 15-day backstop, a failed wait) fails, and so does the run:
      // MarkGraphFailed ends its child and stops its execution (end-children.ts), with the grants and the signer
      // ending a run needs.
      return status;
    } catch (error) {
      if (!isConflict(error) || round >= 5) throw error;
    }
  }
}
