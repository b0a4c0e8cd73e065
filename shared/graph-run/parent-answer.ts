/**
 * A child run of a graph step ends (an agent run: Deliver, MarkFailed, a cancel; an external run: the step that
 * ended it, Deliver or MarkExternalFailed): the parent step's wait is answered with
 * `{ childRunId, status, text, stopReason?, error? }` through its task token, and `CompleteStep` parses and
 * validates the structured output. A token that is no longer open (the parent was cancelled, the wait
 * replaced, the step already answered) is fine, so answering twice (a cancel, then the child's ABORTED event)
 * is too. A parent run that has ended waits on nothing (its execution ended with it): it is not asked.
 */
import { cutText, utf8Length } from '../core/byte-caps.ts';
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
  /** The text did not fit the answer (`MAX_CHILD_ANSWER_BYTES`): it is the child run's `result.text`. */
  textInStore?: true;
};

/**
 * The most UTF-8 bytes of an answer as JSON. SendTaskSuccess takes an `output` of at most 262,144 bytes
 * (https://docs.aws.amazon.com/step-functions/latest/apireference/API_SendTaskSuccess.html, InvalidOutput
 * otherwise), and the Map iteration then holds it with its step ref and token under the same 256 KiB
 * (test/infra/graph-payloads.test.ts). The result text is at most 64 KiB, but as a JSON string a control
 * character takes six bytes (`\u0000`): an engine's artifact or a model's answer full of them does not fit.
 */
export const MAX_CHILD_ANSWER_BYTES = 128 * 1024;

export const childAnswer = (child: Run): ChildAnswer => {
  const answer: ChildAnswer = {
    childRunId: child.runId,
    status: child.status,
    text: child.result?.text ?? '',
    ...(child.stopReason ? { stopReason: child.stopReason } : {}),
    ...(child.error ? { error: cutText(child.error.message, 1000) } : {}),
  };
  if (utf8Length(JSON.stringify(answer)) <= MAX_CHILD_ANSWER_BYTES) return answer;
  // Too large to carry: CompleteStep reads the text from the child run instead (complete-step.ts).
  return { ...answer, text: '', textInStore: true };
};

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
