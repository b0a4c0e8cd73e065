/**
 * The approval HTTP app (Hono): the page behind a signed link and its decision form. No authentication:
 * the signed link is the credential. Served by the approval-http Lambda (API Gateway `/approvals/{proxy+}`)
 * and by the local stack's HTTP server; routes are `/approvals/:approvalId` on both.
 */
import { Hono } from 'hono';
import { bodyLimit } from 'hono/body-limit';
import { approvalPostUrl } from '../approvals/index.ts';
import type { AppContext } from './app-context.ts';
import { type ApprovalAppDeps, consoleLogger } from './deps.ts';
import { methodNotAllowed, notFound, outcome, resultResponse, serverError } from './results.ts';
import { decideHandler, MAX_FORM_BYTES } from './route-decide.ts';
import { pageHandler } from './route-page.ts';

/** Builds the app. Throws `ApprovalLinkError` at once if `publicBaseUrl` is unusable (not https off loopback). */
export function createApprovalApp(deps: ApprovalAppDeps): Hono {
  approvalPostUrl(deps.publicBaseUrl, 'apr_0000000000');
  const ctx: AppContext = { ...deps, logger: deps.logger ?? consoleLogger };
  const app = new Hono();

  // GET also answers HEAD (Hono runs the GET handler and drops the body): both only read.
  app.get('/approvals/:approvalId', pageHandler(ctx));
  app.post(
    '/approvals/:approvalId',
    bodyLimit({
      maxSize: MAX_FORM_BYTES,
      onError: () => resultResponse({ ...outcome({ kind: 'invalid_request' }), httpStatus: 413 }),
    }),
    decideHandler(ctx),
  );
  app.all('/approvals/:approvalId', () => resultResponse(methodNotAllowed, { Allow: 'GET, HEAD, POST' }));
  app.notFound(() => resultResponse(notFound));
  app.onError((error) => {
    // Never the URL or the body: both may carry the link token.
    ctx.logger.error('approval request failed', { error: error.name, message: error.message });
    return resultResponse(serverError);
  });
  return app;
}
