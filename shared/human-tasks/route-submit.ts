/**
 * `POST /human-tasks/:taskId` (urlencoded: `t`, `nonce`, `f.<field>`…): same-origin check, then the link, then
 * the nonce against the link's assignee, then the values against the form's JSON Schema (errors re-render
 * the form, 422), then the submission, once. The submitter is the link's assignee, never a form field.
 */
import type { Context } from 'hono';
import {
  checkWithKeyring,
  keyringSourceOf,
  verifySubjectLink,
  verifySubjectNonce,
} from '../approvals/index.ts';
import { htmlResponse, type PageResult, resultResponse } from '../approvals-http/results.ts';
import { crossSiteReason, pageOrigin } from '../approvals-http/same-origin.ts';
import { cutText } from '../core/byte-caps.ts';
import { HumanTaskClosedError } from '../core/store-errors.ts';
import { formFields } from '../graph/form.ts';
import type { TaskAppContext } from './app.ts';
import { completeHumanTask } from './complete.ts';
import { loadTaskForLink } from './load.ts';
import { closedTaskResult, taskLinkRefused, taskNonceRefused, taskResults } from './results.ts';
import { taskPage } from './route-page.ts';
import { inputName, readSubmission } from './submission.ts';

/** Room for a form of long texts; bigger bodies are refused unread. */
export const MAX_TASK_FORM_BYTES = 64 * 1024;

/** The urlencoded body, or undefined when it is not one or repeats `t` or `nonce`. */
async function readBody(c: Context): Promise<URLSearchParams | undefined> {
  const type = (c.req.header('content-type') ?? '').split(';')[0]!.trim().toLowerCase();
  if (type !== 'application/x-www-form-urlencoded') return undefined;
  const params = new URLSearchParams(await c.req.text());
  if (params.getAll('t').length > 1 || params.getAll('nonce').length > 1) return undefined;
  return params;
}

/** After a refused write: re-read the task to say who submitted, or that it expired or closed. */
async function whyRefused(deps: TaskAppContext, taskId: string, nowMs: number): Promise<PageResult> {
  const task = await deps.store.getHumanTask(taskId);
  if (task === undefined) return taskResults.unknown;
  const run = await deps.store.getRun(task.runId);
  return closedTaskResult(task, run, nowMs) ?? taskResults.alreadyElsewhere;
}

export function taskSubmitHandler(deps: TaskAppContext) {
  const expectedOrigin = pageOrigin(deps.publicBaseUrl);
  return async (c: Context): Promise<Response> => {
    const taskId = c.req.param('taskId') ?? '';
    // Before the body is read: a cross-site form changes nothing, whatever link it carries.
    const crossSite = crossSiteReason(c.req.raw.headers, expectedOrigin);
    if (crossSite !== undefined) {
      deps.logger.warn('task submission refused as cross-site', {
        taskId: cutText(taskId, 80),
        reason: crossSite,
      });
      return resultResponse(taskResults.crossSite);
    }
    const body = await readBody(c);
    const token = body?.get('t') ?? undefined;
    const formNonce = body?.get('nonce') ?? '';
    if (body === undefined || token === undefined || formNonce === '')
      return resultResponse(taskResults.invalidRequest);
    const nowMs = deps.clock.nowMs();
    const source = keyringSourceOf(deps.keyring);
    const { result: link, keyring } = await checkWithKeyring(source, (ring) =>
      verifySubjectLink('human_task', token, ring, { nowMs, id: taskId }),
    );
    if (!link.ok) {
      deps.logger.warn('task link refused', { taskId: cutText(taskId, 80), reason: link.reason });
      return resultResponse(taskLinkRefused(link.reason));
    }
    const assignee = link.claims.holder;
    const { result: nonce } = await checkWithKeyring(source, (ring) =>
      verifySubjectNonce('human_task', formNonce, ring, { id: taskId, holder: assignee, nowMs }),
    );
    if (!nonce.ok) {
      deps.logger.warn('task form nonce refused', { taskId, reason: nonce.reason });
      return resultResponse(taskNonceRefused(nonce.reason));
    }
    const loaded = await loadTaskForLink(deps, link.claims, nowMs);
    if (!loaded.ok) return resultResponse(loaded.result);
    const { task } = loaded;

    const submission = readSubmission(task.form, (name) => body.getAll(name));
    if (!submission.ok) {
      const posted = Object.fromEntries(
        formFields(task.form).flatMap((f) => {
          const value = body.get(inputName(f.name));
          return value === null ? [] : [[f.name, value]];
        }),
      );
      const html = taskPage(
        deps,
        keyring,
        { task, assignee, token, nowMs },
        { posted, errors: submission.errors },
      );
      return htmlResponse(422, html);
    }
    try {
      await completeHumanTask(deps, { taskId, assignee, values: submission.values });
    } catch (error) {
      if (!(error instanceof HumanTaskClosedError)) throw error;
      deps.logger.info('task submission refused', { taskId, assignee, status: error.status });
      return resultResponse(await whyRefused(deps, taskId, nowMs));
    }
    deps.logger.info('task submitted', { taskId, runId: task.runId, assignee });
    return resultResponse(taskResults.submitted);
  };
}
