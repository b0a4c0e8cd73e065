/**
 * The jobs MCP server behind API Gateway's `/mcp` route (docs/jobs.md, "MCP"): its own function, so the Api
 * function's bundle carries no MCP SDK. Same identities as `/v1/jobs`: the route has the API's authorizer
 * and the function reads the identity the same way (`WF_API_AUTH`).
 */
import type { Hono } from 'hono';
import { handle } from 'hono/aws-lambda';
import { ENV } from '../infra/constructs/env-names.ts';
import { iamAuthenticator, jwtAuthenticator } from '../shared/api/auth.ts';
import { createMcpApp } from '../shared/api/mcp-app.ts';
import { handleMcpRequest } from '../shared/mcp/server.ts';
import { awsExecutions } from '../shared/runtime/aws/executions.ts';
import { awsStore } from '../shared/runtime/aws/store.ts';
import { randomIds, systemClock } from '../shared/runtime/clock.ts';
import { handlerTelemetry, withInvocation } from '../shared/runtime/telemetry.ts';
import { tracedHandler } from '../shared/runtime/tracing.ts';

let app: Hono | undefined;

const build = (): Hono =>
  createMcpApp({
    store: awsStore(),
    executions: awsExecutions(),
    clock: systemClock,
    ids: randomIds,
    authenticator: process.env[ENV.apiAuth] === 'jwt' ? jwtAuthenticator() : iamAuthenticator(),
    mcp: handleMcpRequest,
  }) as unknown as Hono;

type LambdaEvent = Parameters<ReturnType<typeof handle>>[0];
type LambdaContext = Parameters<ReturnType<typeof handle>>[1];

// No request fields on the log lines: a client's prompt is its own.
export const handler = tracedHandler('mcp', (event: LambdaEvent, context: LambdaContext) => {
  const telemetry = handlerTelemetry();
  return withInvocation(
    telemetry,
    {},
    async () => {
      app ??= build();
      return handle(app)(event, context);
    },
    context,
  );
});
