/**
 * Sends each reachable assignee of a task their own signed link, then records what went out: one
 * `human_task_notified` entry per notice a channel accepted (never the link) and `notifiedAt` on the record. A
 * task that reached nobody is closed as `undeliverable` in that same commit (fail closed).
 */
import { type Keyring, pageUrl, signSubjectLink } from '../approvals/index.ts';
import { argsPreview } from '../notify/index.ts';
import type { HumanTask } from '../schemas/human-task.ts';
import { commitTaskChange } from './commit.ts';
import type { RequestHumanTaskDeps } from './request.ts';

export type Sent = { notified: string[]; failed: { assignee: string; error: string }[] };

/** The assignee's link: signed for them and this exact form, expiring with the task. No task token inside. */
export function signedTaskUrl(baseUrl: string, keyring: Keyring, task: HumanTask, assignee: string): string {
  const token = signSubjectLink(
    'human_task',
    { id: task.taskId, holder: assignee, expiresAtMs: Date.parse(task.expiresAt), hash: task.formHash },
    keyring,
  );
  return pageUrl(baseUrl, 'human-tasks', task.taskId, token);
}

const contextPreview = (task: HumanTask) =>
  argsPreview(Object.fromEntries(task.context.map((entry) => [entry.path, entry.value ?? null])));

export async function sendNotices(
  deps: RequestHumanTaskDeps,
  keyring: Keyring,
  task: HumanTask,
  nowIso: string,
): Promise<Sent> {
  const failed: Sent['failed'] = [];
  const due = task.assignees.filter((assignee) => {
    if (deps.notifier.reaches(assignee, task.owner)) return true;
    failed.push({ assignee, error: 'unreachable' });
    return false;
  });
  const settled = await Promise.allSettled(
    due.map((assignee) =>
      deps.notifier.notify({
        owner: task.owner,
        approver: assignee,
        subject: 'human_task',
        workflowName: task.workflowName,
        runId: task.runId,
        tool: task.title,
        argsPreview: contextPreview(task),
        expiresAt: task.expiresAt,
        url: signedTaskUrl(deps.publicBaseUrl, keyring, task, assignee),
      }),
    ),
  );
  const notified: string[] = [];
  settled.forEach((result, i) => {
    const assignee = due[i]!;
    if (result.status === 'fulfilled') notified.push(assignee);
    // The error's name only: a notifier's message could quote the link.
    else failed.push({ assignee, error: (result.reason as Error | undefined)?.name ?? 'Error' });
  });
  await commitTaskChange(deps, task.runId, async () => {
    const current = await deps.store.getHumanTask(task.taskId);
    if (current?.status !== 'open') return { result: undefined };
    const next: HumanTask =
      notified.length > 0
        ? { ...current, notifiedAt: nowIso }
        : { ...current, status: 'closed', closedAt: nowIso, closedReason: 'undeliverable' };
    return {
      result: undefined,
      writes: [{ task: next, expectedStatus: 'open' }],
      audit: [
        ...notified.map((assignee) => ({
          type: 'human_task_notified' as const,
          actor: 'system',
          data: { taskId: task.taskId, stepId: task.stepId, assignee, channel: deps.notifier.channel },
        })),
        ...(notified.length > 0
          ? []
          : [
              {
                type: 'human_task_closed' as const,
                actor: 'system',
                data: { taskId: task.taskId, stepId: task.stepId, reason: 'undeliverable', failed },
              },
            ]),
      ],
    };
  });
  return { notified, failed };
}
