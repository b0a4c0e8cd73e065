/**
 * A valid submission: recorded once (the task conditional on `open`, fenced on the run) together with the
 * `human_task_submitted` audit entry naming who submitted what, then the waiting execution resumed with
 * `{ output }`. Validation against the form happens before (submission.ts); this is the write.
 */

import { consoleLogger } from '../approvals-http/deps.ts';
import { TaskTokenSendError } from '../approvals-http/errors.ts';
import type { TaskTokenAnswer } from '../approvals-http/task-tokens.ts';
import { canonicalJson, sha256Hex } from '../audit/index.ts';
import { isoAt } from '../core/engine.ts';
import { HumanTaskClosedError } from '../core/store-errors.ts';
import type { HumanTask } from '../schemas/human-task.ts';
import { commitTaskChange, runIsLive } from './commit.ts';
import { assigneeActor, type HumanTaskDeps } from './deps.ts';

export type CompleteResult = {
  task: HumanTask;
  /** How the wait was answered; `failed` when Step Functions could not be reached (the timeout path reads the record). */
  answer: TaskTokenAnswer | 'no_token' | 'failed';
};

/**
 * Records `values` as the submission of `assignee`, once. Throws `HumanTaskClosedError` (nothing written) when
 * the task is unknown, not open, expired by the clock (fail closed), not assigned to them, or its run ended.
 */
export async function completeHumanTask(
  deps: HumanTaskDeps,
  input: { taskId: string; assignee: string; values: Record<string, unknown> },
): Promise<CompleteResult> {
  const logger = deps.logger ?? consoleLogger;
  const first = await deps.store.getHumanTask(input.taskId);
  if (first === undefined) throw new HumanTaskClosedError(input.taskId, 'unknown');
  const task = await commitTaskChange(deps, first.runId, async (run) => {
    const current = await deps.store.getHumanTask(input.taskId);
    if (current === undefined) throw new HumanTaskClosedError(input.taskId, 'unknown');
    if (current.status !== 'open') throw new HumanTaskClosedError(input.taskId, current.status);
    if (!current.assignees.includes(input.assignee))
      throw new HumanTaskClosedError(input.taskId, 'not an assignee');
    if (Date.parse(current.expiresAt) <= deps.clock.nowMs())
      throw new HumanTaskClosedError(input.taskId, 'expired');
    if (!runIsLive(run)) throw new HumanTaskClosedError(input.taskId, 'run ended');
    const submitted: HumanTask = {
      ...current,
      status: 'submitted',
      submission: input.values,
      submittedBy: input.assignee,
      submittedAt: isoAt(deps.clock),
    };
    return {
      result: submitted,
      writes: [{ task: submitted, expectedStatus: 'open' }],
      audit: [
        {
          type: 'human_task_submitted',
          actor: assigneeActor(input.assignee),
          data: {
            taskId: current.taskId,
            stepId: current.stepId,
            attempt: current.attempt,
            assignee: input.assignee,
            submission: input.values,
            submissionHash: sha256Hex(canonicalJson(input.values)),
          },
        },
      ],
    };
  });
  if (task.taskToken === undefined) return { task, answer: 'no_token' };
  try {
    const answer = await deps.taskTokens.sendSuccess(task.taskToken, { output: task.submission });
    logger.info('human task wait answered', { taskId: task.taskId, runId: task.runId, answer });
    return { task, answer };
  } catch (error) {
    // Recorded all the same: the wait ends at its timeout, and the expiry step then finds it submitted.
    logger.error('could not resume the run after a submission', {
      taskId: task.taskId,
      runId: task.runId,
      error: error instanceof TaskTokenSendError ? error.message : (error as Error).name,
    });
    return { task, answer: 'failed' };
  }
}
