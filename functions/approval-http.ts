/**
 * The signed pages behind API Gateway, with no auth (the signed link is the credential): approval pages (GET
 * renders, POST decides once) and human-task forms (GET renders, POST submits once).
 */
import type { Hono } from 'hono';
import { handle } from 'hono/aws-lambda';
import { signedPagesApp } from '../shared/human-tasks/signed-pages.ts';
import { approvalAppDeps } from '../shared/runtime/aws/approval-app.ts';
import { humanTaskAppDeps } from '../shared/runtime/aws/human-tasks.ts';
import { handlerTelemetry, withInvocation } from '../shared/runtime/telemetry.ts';
import { tracedHandler } from '../shared/runtime/tracing.ts';
import { loadWebFetch } from '../shared/runtime/web-fetch.ts';

let app: Promise<Hono> | undefined;

type LambdaEvent = Parameters<ReturnType<typeof handle>>[0];
type LambdaContext = Parameters<ReturnType<typeof handle>>[1];

// Never the event on a log line: its path and query carry the signed link token and the form nonce.
// Every page is a web Response: load the fetch API at init (shared/runtime/web-fetch.ts).
loadWebFetch();

export const handler = tracedHandler('approval-http', (event: LambdaEvent, context: LambdaContext) =>
  withInvocation(
    handlerTelemetry(),
    {},
    async () => {
      app ??= Promise.all([approvalAppDeps(), humanTaskAppDeps()])
        // One function serves both signed-page families: `/approvals/*` and `/human-tasks/*`.
        .then(([approvalDeps, taskDeps]) => signedPagesApp(approvalDeps, taskDeps))
        .catch((error: unknown) => {
          app = undefined;
          throw error;
        });
      return handle(await app)(event, context);
    },
    context,
  ),
);
