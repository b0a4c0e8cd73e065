/**
 * A Hono app behind API Gateway as a Lambda handler: the app is built once per container, on the first request
 * (not at import, so a cold start that fails to build answers that request with its error), and every request
 * runs inside the function's invocation telemetry with no request fields on the log lines.
 */
import type { Hono } from 'hono';
import { handle } from 'hono/aws-lambda';
import { handlerTelemetry, withInvocation } from './telemetry.ts';
import { tracedHandler } from './tracing.ts';
import { loadWebFetch } from './web-fetch.ts';

type LambdaEvent = Parameters<ReturnType<typeof handle>>[0];
type LambdaContext = Parameters<ReturnType<typeof handle>>[1];

export function honoLambdaHandler(name: string, build: () => Hono) {
  // Every request becomes a web Request and its answer a Response: load them at init (web-fetch.ts).
  loadWebFetch();
  let app: Hono | undefined;
  return tracedHandler(name, (event: LambdaEvent, context: LambdaContext) =>
    withInvocation(
      handlerTelemetry(),
      {},
      async () => {
        app ??= build();
        return handle(app)(event, context);
      },
      context,
    ),
  );
}
