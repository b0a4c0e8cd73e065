/**
 * The local stack's HTTP server, for the configured host names only: the API (with the jobs MCP server at
 * /mcp), the approval and human-task pages, the console, and the local extras (`/local/inbox`,
 * `/local/events`, recordings).
 */
import { readFileSync } from 'node:fs';
import { createAdaptorServer } from '@hono/node-server';
import { Hono } from 'hono';
import { apiKeyAuthenticator, createApiApp, ownersOnly } from '../api/index.ts';
import { localEventBus } from '../api/routes/local-events.ts';
import { servedByWorkflowWrite } from '../api/workflow-write-routes.ts';
import { createApprovalApp } from '../approvals-http/index.ts';
import { localKeyVerifierFromFile } from '../audit-signing/index.ts';
import { inProcessApi } from '../console/in-process.ts';
import { localConsole } from '../console/local.ts';
import { createHumanTaskApp } from '../human-tasks/index.ts';
import { handleMcpRequest } from '../mcp/server.ts';
import type { RecordingProxy } from '../model/recording-proxy.ts';
import { declaredApprovers } from '../notify/reach.ts';
import { withFunctionName } from '../runtime/aws-call-recorder.ts';
import { randomIds } from '../runtime/clock.ts';
import { localTriggerSync } from '../triggers-sync/index.ts';
import type { LocalFiles } from './files.ts';
import { allowedHosts, hostGuard } from './host-guard.ts';
import { inboxRoutes } from './inbox-routes.ts';
import type { LocalMachines } from './machines.ts';
import { recordingRoutes } from './recording-routes.ts';
import type { LocalServices } from './services-local.ts';
import { sessionTable } from './sessions.ts';
import type { LocalStackOptions } from './stack-options.ts';
import type { Closers } from './stack-parts.ts';

/** The routes, in the order they are matched. */
export function localApp(args: {
  options: Pick<LocalStackOptions, 'hostNames' | 'jobRetry' | 'alertTopics' | 'approvers'>;
  services: LocalServices;
  machines: LocalMachines;
  files: LocalFiles;
  auditPublicKeyPath: string;
  recorder: RecordingProxy | undefined;
}): Hono {
  const { options, services, machines } = args;
  const { store, clock, keyring, url, port, logger, inbox } = services;
  const { taskTokens, executions } = machines;
  const origin = new URL(url).origin;
  const authenticator = apiKeyAuthenticator(readFileSync(args.files.apiKeys, 'utf8'));
  const app = new Hono();
  app.use('*', hostGuard(allowedHosts(port, options.hostNames)));
  // Which Lambda function each route stands in for (the call recorder's function name).
  app.use('/approvals/*', (_c, next) => withFunctionName('approval-http', next));
  app.use('/human-tasks/*', (_c, next) => withFunctionName('approval-http', next));
  app.use('/v1/*', (c, next) =>
    withFunctionName(servedByWorkflowWrite(c.req.method, c.req.path) ? 'workflow-write' : 'api', next),
  );
  app.use('/local/*', (_c, next) => withFunctionName('api', next));
  app.route(
    '/',
    inboxRoutes({
      inbox,
      clock,
      // The inbox is the owner's: a delegated-jobs client's key does not open it.
      authenticator: ownersOnly(authenticator),
      sessions: sessionTable(clock),
      origin,
    }),
  );
  app.route('/', recordingRoutes({ store, authenticator, recorder: args.recorder }));
  const pages = { store, clock, keyring, taskTokens, publicBaseUrl: url, logger };
  app.route('/', createApprovalApp({ ...pages, actions: services.catalog }));
  // Human-task forms: the same signed-page rules and keyring; links reach the same inbox and terminal.
  app.route('/', createHumanTaskApp(pages));
  // The console calls the API in-process as the signed-in owner (shared/console/in-process.ts).
  const inProcess = inProcessApi(authenticator);
  const api = createApiApp({
    store,
    executions,
    clock,
    ids: randomIds,
    authenticator: inProcess.authenticator,
    triggerSync: localTriggerSync(store),
    auditVerifier: localKeyVerifierFromFile(args.auditPublicKeyPath),
    local: { events: localEventBus },
    jobs: { models: machines.models, ...(options.jobRetry ? { retry: options.jobRetry } : {}) },
    graph: { taskTokens, humanTasks: machines.humanTaskService },
    externalEngines: machines.engines,
    ...alertTopicDeps(options.alertTopics ?? []),
    ...(options.approvers ? { approverReach: approverReachOf(options.approvers) } : {}),
    // The jobs MCP server at /mcp (on AWS it is its own function, functions/mcp.ts).
    mcp: handleMcpRequest,
  });
  app.route(
    '/',
    localConsole({
      authenticator,
      inProcess,
      fetchApi: (request) => withFunctionName('api', () => api.fetch(request)),
      clock,
      origin,
    }),
  );
  app.route('/', api);
  return app;
}

/** The `alertTopics` option as the API's save-time check reads it (as the functions read it on AWS). */
function alertTopicDeps(topics: NonNullable<LocalStackOptions['alertTopics']>) {
  const owners: Record<string, string[]> = {};
  for (const topic of topics)
    if (typeof topic !== 'string')
      owners[topic.topicArn] = [...(owners[topic.topicArn] ?? []), ...topic.owners];
  return {
    alertTopicArns: topics.map((topic) => (typeof topic === 'string' ? topic : topic.topicArn)),
    alertTopicOwners: owners,
  };
}

/** The `approvers` option (owner → emails, as CDK context) as the API's save-time check reads it. */
function approverReachOf(approvers: Record<string, string[]>) {
  const owners: Record<string, string[]> = {};
  for (const [owner, emails] of Object.entries(approvers))
    for (const email of emails) owners[email] = [...(owners[email] ?? []), owner];
  return declaredApprovers('local', owners);
}

/**
 * Binds the local HTTP port before anything is built from it. The services and pages need the bound port (their
 * links and host guard name it), so the port is bound first — port 0 picks a free one — and the app is attached
 * once it exists; until then every request answers 503. Binding first leaves no window in which another process
 * could take a port picked earlier (the EADDRINUSE a parallel test run hit). A bind error rejects.
 */
export async function listenLocal(
  port: number,
  closers: Closers,
): Promise<{ port: number; attach(app: Hono): void }> {
  let app: Hono | undefined;
  const server = createAdaptorServer({
    fetch: (request: Request) => (app ? app.fetch(request) : new Response('starting', { status: 503 })),
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, '127.0.0.1', () => {
      server.removeListener('error', reject);
      resolve();
    });
  });
  closers.push(
    () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        // Idle keep-alive connections (a browser's, a client's) would hold close() open indefinitely.
        if ('closeAllConnections' in server) server.closeAllConnections();
      }),
  );
  const address = server.address();
  return {
    port: typeof address === 'object' && address ? address.port : port,
    attach: (built) => {
      app = built;
    },
  };
}
