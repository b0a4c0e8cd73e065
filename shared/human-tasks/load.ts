/** Loading a human task for a verified link: only after the signature checked out. */
import type { SubjectLinkClaims } from '../approvals/index.ts';
import type { ApprovalLogger } from '../approvals-http/deps.ts';
import type { PageResult } from '../approvals-http/results.ts';
import type { HumanTask } from '../schemas/human-task.ts';
import type { Run } from '../schemas/run.ts';
import { formHash, type HumanTaskStore } from './deps.ts';
import { closedTaskResult, taskResults } from './results.ts';

export type LoadedTask = { ok: true; task: HumanTask; run: Run } | { ok: false; result: PageResult };

/**
 * The task behind a verified link, if it can still be submitted. The link must name one of its assignees and
 * the hash of its exact form, recomputed from the stored form (not just the stored hash).
 */
export async function loadTaskForLink(
  deps: { store: HumanTaskStore; logger: ApprovalLogger },
  claims: SubjectLinkClaims,
  nowMs: number,
): Promise<LoadedTask> {
  const task = await deps.store.getHumanTask(claims.id);
  if (task === undefined) return { ok: false, result: taskResults.unknown };
  if (!task.assignees.includes(claims.holder)) {
    deps.logger.warn('task link names no assignee of this task', { taskId: task.taskId });
    return { ok: false, result: taskResults.invalidLink };
  }
  const storedHash = formHash(task.stepId, task.form);
  if (claims.hash !== task.formHash || storedHash !== task.formHash) {
    deps.logger.error('task form does not match the link', {
      taskId: task.taskId,
      recordHashMatches: storedHash === task.formHash,
    });
    return { ok: false, result: taskResults.invalidLink };
  }
  const run = await deps.store.getRun(task.runId);
  const closed = closedTaskResult(task, run, nowMs);
  if (closed !== undefined || run === undefined) return { ok: false, result: closed ?? taskResults.unknown };
  return { ok: true, task, run };
}
