/** `GET`/`HEAD /human-tasks/:taskId?t=…`: the form page. Changes nothing: mail scanners prefetch links. */
import type { Context } from 'hono';
import {
  checkWithKeyring,
  issueSubjectNonce,
  type Keyring,
  keyringSourceOf,
  pagePostUrl,
  verifySubjectLink,
} from '../approvals/index.ts';
import { htmlResponse, resultResponse } from '../approvals-http/results.ts';
import { cutText } from '../core/byte-caps.ts';
import { formFields } from '../graph/form.ts';
import type { HumanTask } from '../schemas/human-task.ts';
import type { TaskAppContext } from './app.ts';
import { loadTaskForLink } from './load.ts';
import { renderHumanTaskPage } from './page.ts';
import { taskLinkRefused } from './results.ts';
import type { FieldErrors } from './submission.ts';

/** The page of an open task for `assignee`, with a fresh nonce (stateless: rendering writes nothing). */
export function taskPage(
  deps: TaskAppContext,
  keyring: Keyring,
  render: { task: HumanTask; assignee: string; token: string; nowMs: number },
  again?: { posted: Record<string, string>; errors: FieldErrors },
): string {
  const { task, assignee } = render;
  return renderHumanTaskPage({
    title: task.title,
    owner: task.owner,
    workflowName: task.workflowName,
    runId: task.runId,
    stepId: task.stepId,
    assignee,
    expiresAtIso: task.expiresAt,
    context: task.context,
    fields: formFields(task.form),
    ...(again ?? {}),
    token: render.token,
    nonce: issueSubjectNonce(
      'human_task',
      { id: task.taskId, holder: assignee, nowMs: render.nowMs },
      keyring,
    ),
    postUrl: pagePostUrl(deps.publicBaseUrl, 'human-tasks', task.taskId),
  });
}

export function taskPageHandler(deps: TaskAppContext) {
  return async (c: Context): Promise<Response> => {
    const taskId = c.req.param('taskId') ?? '';
    const nowMs = deps.clock.nowMs();
    const token = c.req.query('t');
    // The signature first: a forged link learns nothing about which tasks exist.
    const { result: link, keyring } = await checkWithKeyring(keyringSourceOf(deps.keyring), (ring) =>
      verifySubjectLink('human_task', token, ring, { nowMs, id: taskId }),
    );
    if (!link.ok) {
      deps.logger.warn('task link refused', { taskId: cutText(taskId, 80), reason: link.reason });
      return resultResponse(taskLinkRefused(link.reason));
    }
    const loaded = await loadTaskForLink(deps, link.claims, nowMs);
    if (!loaded.ok) return resultResponse(loaded.result);
    const html = taskPage(deps, keyring, {
      task: loaded.task,
      assignee: link.claims.holder,
      token: token ?? '',
      nowMs,
    });
    return htmlResponse(200, html);
  };
}
