/**
 * The human-task pages (Hono): the form behind a signed link and its submission. No authentication: the signed
 * link is the credential. Same headers, same-origin rule and keyring as the approval pages; routes are
 * `/human-tasks/:taskId`. Mount next to `createApprovalApp` (local stack) or serve from its own function.
 */
import { Hono } from 'hono';
import { bodyLimit } from 'hono/body-limit';
import { pagePostUrl } from '../approvals/index.ts';
import { type ApprovalLogger, consoleLogger } from '../approvals-http/deps.ts';
import { notFound, resultResponse } from '../approvals-http/results.ts';
import type { HumanTaskDeps } from './deps.ts';
import { taskResults } from './results.ts';
import { taskPageHandler } from './route-page.ts';
import { MAX_TASK_FORM_BYTES, taskSubmitHandler } from './route-submit.ts';

/** The deps as the routes use them: a logger is always there. */
export type TaskAppContext = Omit<HumanTaskDeps, 'logger'> & { logger: ApprovalLogger };

/** Builds the app. Throws `ApprovalLinkError` at once if `publicBaseUrl` is unusable (not https off loopback). */
export function createHumanTaskApp(deps: HumanTaskDeps): Hono {
  pagePostUrl(deps.publicBaseUrl, 'human-tasks', 'htk_0000000000_check_1');
  const ctx: TaskAppContext = { ...deps, logger: deps.logger ?? consoleLogger };
  const app = new Hono();
  // GET also answers HEAD (Hono runs the GET handler and drops the body): both only read.
  app.get('/human-tasks/:taskId', taskPageHandler(ctx));
  app.post(
    '/human-tasks/:taskId',
    bodyLimit({
      maxSize: MAX_TASK_FORM_BYTES,
      onError: () => resultResponse({ ...taskResults.invalidRequest, httpStatus: 413 }),
    }),
    taskSubmitHandler(ctx),
  );
  app.all('/human-tasks/:taskId', () =>
    resultResponse(taskResults.methodNotAllowed, { Allow: 'GET, HEAD, POST' }),
  );
  app.notFound(() => resultResponse(notFound));
  app.onError((error) => {
    // Never the URL or the body: both may carry the link token.
    ctx.logger.error('human task request failed', { error: error.name, message: error.message });
    return resultResponse(taskResults.serverError);
  });
  return app;
}
