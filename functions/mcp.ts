/**
 * The jobs MCP server behind API Gateway's `/mcp` route (docs/jobs.md, "MCP"): its own function, so the Api
 * function's bundle carries no MCP SDK. Same identities as `/v1/jobs`: the route has the API's authorizer
 * and the function reads the identity the same way (`WF_API_AUTH`).
 */
import type { Hono } from 'hono';
import { ENV } from '../infra/constructs/env-names.ts';
import { iamAuthenticator, jwtAuthenticator } from '../shared/api/auth.ts';
import { createMcpApp } from '../shared/api/mcp-app.ts';
import { handleMcpRequest } from '../shared/mcp/server.ts';
import { awsExecutions } from '../shared/runtime/aws/executions.ts';
import { awsSigningStore } from '../shared/runtime/aws/signing-store.ts';
import { randomIds, systemClock } from '../shared/runtime/clock.ts';
import { honoLambdaHandler } from '../shared/runtime/hono-lambda.ts';

const build = (): Hono =>
  createMcpApp({
    // A cancel anchors the run's head: the owner's heads are signed after it, as the api's cancel signs them.
    store: awsSigningStore(),
    executions: awsExecutions(),
    clock: systemClock,
    ids: randomIds,
    authenticator: process.env[ENV.apiAuth] === 'jwt' ? jwtAuthenticator() : iamAuthenticator(),
    mcp: handleMcpRequest,
  }) as unknown as Hono;

// No request fields on the log lines: a client's prompt is its own.
export const handler = honoLambdaHandler('mcp', build);
