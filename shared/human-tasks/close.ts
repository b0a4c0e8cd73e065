/**
 * Ending a human task without a submission: `expireHumanTask` when the wait timed out (the graph's timeout
 * path), `closeFailedWaitTask` when the wait failed otherwise or the graph run failed, `closeHumanTasks` when the
 * run is cancelled. All are conditional on `open`, audited, and leave a submitted task alone: a submission that
 * won the race is the step's output.
 */
import { consoleLogger } from '../approvals-http/deps.ts';
import { cutText } from '../core/byte-caps.ts';
import { isoAt } from '../core/engine.ts';
import { type HumanTask, humanTaskId } from '../schemas/human-task.ts';
import { commitTaskChange } from './commit.ts';
import type { HumanTaskDeps } from './deps.ts';

/** What closing needs: no keyring and no notifier (the api closes a cancelled run's tasks with this). */
export type HumanTaskCloseDeps = Pick<HumanTaskDeps, 'store' | 'clock' | 'taskTokens' | 'logger'>;

import { HUMAN_TASK_ERRORS } from './errors.ts';

export type ExpireResult =
  /** Expired now, or already: take the node's `onTimeout` path. */
  | { status: 'expired'; taskId: string }
  /** Submitted before the timeout won: use `output` as the step's output. */
  | { status: 'submitted'; taskId: string; output: Record<string, unknown> }
  /** Closed (run cancelled, wait failed, undeliverable) or never opened. */
  | { status: 'closed' | 'unknown'; taskId: string };

/** Records the step attempt's open task `expired` (fail closed), with `human_task_expired` in the chain. */
export async function expireHumanTask(
  deps: Pick<HumanTaskDeps, 'store' | 'clock'>,
  input: { runId: string; stepId: string; attempt?: number },
): Promise<ExpireResult> {
  const taskId = humanTaskId(input.runId, input.stepId, input.attempt ?? 1);
  return commitTaskChange<ExpireResult>(deps, input.runId, async () => {
    const task = await deps.store.getHumanTask(taskId);
    if (task === undefined) return { result: { status: 'unknown', taskId } };
    if (task.status === 'submitted')
      return { result: { status: 'submitted', taskId, output: task.submission ?? {} } };
    if (task.status !== 'open') return { result: { status: task.status, taskId } };
    const now = isoAt(deps.clock);
    // The wait's token is dropped with it: that wait is over, and nothing may answer it any more.
    const { taskToken: _over, ...rest } = task;
    return {
      result: { status: 'expired', taskId },
      writes: [
        {
          task: { ...rest, status: 'expired', closedAt: now, closedReason: 'timeout' },
          expectedStatus: 'open',
        },
      ],
      audit: [
        {
          type: 'human_task_expired',
          actor: 'system',
          data: { taskId, stepId: task.stepId, expiresAt: task.expiresAt },
        },
      ],
    };
  });
}

/**
 * Closes the step attempt's open task after its wait failed for another reason than time (the human-task
 * function failing after it opened the task, a re-request refused): that wait is over, so its token is dropped
 * and nothing answers it; the page refuses from now on, instead of taking a submission nothing would receive.
 * Conditional on `open` and audited `human_task_closed`; a submitted or already closed task is left alone.
 */
export async function closeFailedWaitTask(
  deps: Pick<HumanTaskDeps, 'store' | 'clock'>,
  input: { runId: string; stepId: string; attempt: number; reason: string },
): Promise<void> {
  const taskId = humanTaskId(input.runId, input.stepId, input.attempt);
  await commitTaskChange<void>(deps, input.runId, async () => {
    const task = await deps.store.getHumanTask(taskId);
    if (task?.status !== 'open') return { result: undefined };
    const { taskToken: _over, ...rest } = task;
    const closedReason = cutText(`wait_failed: ${input.reason}`, 200);
    return {
      result: undefined,
      writes: [
        {
          task: { ...rest, status: 'closed', closedAt: isoAt(deps.clock), closedReason },
          expectedStatus: 'open',
        },
      ],
      audit: [
        {
          type: 'human_task_closed',
          actor: 'system',
          data: { taskId, stepId: task.stepId, reason: closedReason },
        },
      ],
    };
  });
}

/**
 * Closes every open task of a run, or of one of its steps (`reason`: `run_cancelled`, the one its callers pass and
 * the page words; a failed wait or graph run closes through `closeFailedWaitTask`), then fails each one's wait
 * with `HumanTask.Closed` (an execution already stopped answers `already_closed`). Returns the tasks it closed.
 */
export async function closeHumanTasks(
  deps: HumanTaskCloseDeps,
  input: { runId: string; stepId?: string; reason: string },
): Promise<HumanTask[]> {
  const logger = deps.logger ?? consoleLogger;
  const closed = await commitTaskChange<HumanTask[]>(deps, input.runId, async () => {
    const now = isoAt(deps.clock);
    const open = (await deps.store.listRunHumanTasks(input.runId)).filter(
      (t) => t.status === 'open' && (input.stepId === undefined || t.stepId === input.stepId),
    );
    const next = open.map((task) => ({
      ...task,
      status: 'closed' as const,
      closedAt: now,
      closedReason: input.reason,
    }));
    return {
      result: next,
      writes: next.map((task) => ({ task, expectedStatus: 'open' as const })),
      audit: next.map((task) => ({
        type: 'human_task_closed' as const,
        actor: 'system',
        data: { taskId: task.taskId, stepId: task.stepId, reason: input.reason },
      })),
    };
  });
  for (const task of closed) {
    if (task.taskToken === undefined) continue;
    try {
      await deps.taskTokens.sendFailure(task.taskToken, HUMAN_TASK_ERRORS.closed, `closed: ${input.reason}`);
    } catch (error) {
      logger.warn('could not answer a closed human task wait', {
        taskId: task.taskId,
        error: (error as Error).name,
      });
    }
  }
  return closed;
}
