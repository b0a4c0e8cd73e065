/**
 * A child run of a graph step ends (an agent run: Deliver, MarkFailed, a cancel; an external run: the step that
 * ended it, Deliver or MarkExternalFailed): the parent step's wait is answered with
 * `{ childRunId, status, text, stopReason?, error? }` through its task token, and `CompleteStep` parses and
 * validates the structured output. A token that is no longer open (the parent was cancelled, the wait
 * replaced, the step already answered) is fine, so answering twice (a cancel, then the child's ABORTED event)
 * is too. A parent run that has ended waits on nothing (its execution ended with it): it is not asked.
 */
import { isTerminalRunStatus, type Run } from '../schemas/run.ts';
import type { GraphRunStore } from './ports.ts';

export type ChildAnswer = {
  childRunId: string;
  status: string;
  text: string;
  /** Why the child stopped (`shadow`, `outcome_unknown`, `timeout`, …). */
  stopReason?: string;
  /** The child's error message, when it failed. */
  error?: string;
};

export const childAnswer = (child: Run): ChildAnswer => ({
  childRunId: child.runId,
  status: child.status,
  text: child.result?.text ?? '',
  ...(child.stopReason ? { stopReason: child.stopReason } : {}),
  ...(child.error ? { error: child.error.message.slice(0, 1000) } : {}),
});

export type ParentAnswerDeps = {
  store: Pick<GraphRunStore, 'loadGraphRun'>;
  taskTokens: { sendSuccess(token: string, output: object): Promise<unknown> };
};

/** Answers the parent step of `child` if it is a graph step's child run that has ended; otherwise nothing. */
export async function answerParentStep(deps: ParentAnswerDeps, child: Run | undefined): Promise<boolean> {
  const parent = child?.parent;
  if (!child || !parent || !['done', 'failed', 'denied', 'cancelled'].includes(child.status)) return false;
  const loaded = await deps.store.loadGraphRun(parent.runId);
  if (!loaded || isTerminalRunStatus(loaded.run.status)) return false;
  const step = loaded.steps.find((candidate) => candidate.stepId === parent.stepId);
  if (!step?.taskToken || step.childRunId !== child.runId || step.attempt !== parent.attempt) return false;
  await deps.taskTokens.sendSuccess(step.taskToken, childAnswer(child));
  return true;
}
