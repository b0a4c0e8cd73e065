/**
 * The local stack: the whole runtime on one machine, no AWS account.
 * - DynamoDB Local (data on disk under the data directory), the same table definition as the CDK stack;
 * - the CDK-synthesized state machine run by aws-local-stepfunctions, its Task states calling the same
 *   handler modules (functions/) in process, and a local Step Functions endpoint for the SDK calls
 *   (StartExecution, SendTaskSuccess, …), so those code paths are the AWS ones;
 * - the HTTP API and the approval pages on a local port, with `/local/inbox` and `/local/events`;
 * - the scripted Messages-API server (or real Claude when an API key is given), through the real SDK;
 * - a local scheduler for schedule triggers; on start, finished runs a crash left undelivered are delivered and
 *   non-terminal runs are resumed (docs/local-stack.md).
 */

import { readFileSync } from 'node:fs';
import { readdir, readFile } from 'node:fs/promises';
import { SFNClient } from '@aws-sdk/client-sfn';
import { type ServerType, serve } from '@hono/node-server';
import { Hono } from 'hono';
import { createDeliverHandler } from '../../functions/deliver.ts';
import { createExpireHandler } from '../../functions/expire.ts';
import { createGraphAdvanceHandler } from '../../functions/graph-advance.ts';
import { createGraphServiceHandler } from '../../functions/graph-service.ts';
import { createGraphWaitHandler } from '../../functions/graph-wait.ts';
import { createMarkFailedHandler } from '../../functions/mark-failed.ts';
import { createRequestApprovalHandler } from '../../functions/request-approval.ts';
import { createTurnHandler } from '../../functions/turn.ts';
import { synthesizeLocalDefinitions } from '../../infra/local-definition.ts';
import { apiKeyAuthenticator, createApiApp, ownersOnly } from '../api/index.ts';
import { cachedKeyring } from '../approvals/index.ts';
import { createApprovalApp, sfnTaskTokens } from '../approvals-http/index.ts';
import { ensureLocalSigningKey, localKeySigner, localKeyVerifierFromFile } from '../audit-signing/index.ts';
import { inProcessApi } from '../console/in-process.ts';
import { localConsole } from '../console/local.ts';
import type { DeliverDeps } from '../core/deliver.ts';
import type { TurnDeps } from '../core/engine.ts';
import type { Clock } from '../core/ports.ts';
import { fileSecrets, SECRET_CACHE_TTL_MS } from '../credentials/index.ts';
import { createEgress } from '../egress/index.ts';
import type { EnginesConfig } from '../external/index.ts';
import type { ExternalRunDeps } from '../external/run/index.ts';
import { graphDefinitions } from '../graph-run/definitions.ts';
import type { HumanTaskPort } from '../graph-run/human-task-port.ts';
import { answerParentStep } from '../graph-run/parent-answer.ts';
import type { ServiceStepDeps } from '../graph-run/service-step.ts';
import { createHumanTaskApp, humanTaskPort } from '../human-tasks/index.ts';
import { type JobsDeps, type RetryPolicy, settleJobOfRun, sweepJobs } from '../jobs/index.ts';
import { handleMcpRequest } from '../mcp/server.ts';
import { ADD_FIXTURE_HINT, mergeFixtures, readFixtureDirs } from '../model/fixture-dir.ts';
import { type ScriptedFixture, startScriptedModelServer } from '../model/index.ts';
import { type RecordingProxy, startRecordingProxy } from '../model/recording-proxy.ts';
import {
  consoleNotifier,
  consoleOwnerNotifier,
  inboxNotifier,
  type Notifier,
  type OwnerNoticeDeps,
} from '../notify/index.ts';
import { type ExecutionsPort, resumeRun } from '../runs/index.ts';
import { type AwsCallSink, recordAwsCalls, withFunctionName } from '../runtime/aws-call-recorder.ts';
import { randomIds, systemClock, waitingClock } from '../runtime/clock.ts';
import { destinations } from '../runtime/destinations.ts';
import { actionCatalogFor, engineDeps } from '../runtime/engine-deps.ts';
import { sfnExecutions } from '../runtime/executions-sfn.ts';
import { modelFor } from '../runtime/model-router.ts';
import { createStoreContext } from '../store/client.ts';
import { DynamoStore } from '../store/index.ts';
import { localTriggerSync } from '../triggers-sync/index.ts';
import { listActiveRuns } from './active-runs.ts';
import { deliverLeftovers } from './deliver-leftovers.ts';
import { durableLocalCommits } from './durable-commits.ts';
import { type DynamoDbLocal, freePort, startDynamoDbLocal } from './dynamodb-local.ts';
import { localEngineRegistry, localExternalMachine } from './external-local.ts';
import { ensureLocalFiles, type LocalFiles, localFiles } from './files.ts';
import { allowedHosts, hostGuard } from './host-guard.ts';
import { type LocalHumanTasks, localHumanTasks } from './human-tasks-local.ts';
import { inboxRoutes } from './inbox-routes.ts';
import { recordingRoutes } from './recording-routes.ts';
import { type LocalScheduler, startLocalScheduler } from './scheduler.ts';
import { sessionTable } from './sessions.ts';
import { LocalStepFunctions, startLocalSfnEndpoint } from './sfn/index.ts';
import { ensureTable } from './table.ts';

export type LocalStackOptions = {
  /** Where DynamoDB data, the keyring, API keys and secrets live. Default `.local`. */
  dataDir?: string;
  /** Use an already running DynamoDB (Local) instead of starting one (tests). */
  dynamodbEndpoint?: string;
  /** Keep DynamoDB data in memory (tests). */
  inMemory?: boolean;
  tableName?: string;
  /** HTTP port of the API and approval pages. Default 8787; 0 picks a free one. */
  port?: number;
  /**
   * Host names, besides 127.0.0.1, localhost and [::1], that the HTTP server answers to (a LAN name, a
   * reverse proxy's). Every other `Host` is refused (421): the DNS-rebinding defence.
   */
  hostNames?: string[];
  /**
   * Host names inside this deployment: a POST, PUT, PATCH or DELETE to any other host is an external publish
   * and needs approval whatever the workflow's gate says. Default: none.
   */
  internalHosts?: string[];
  /** Real Claude when set; otherwise the scripted Messages-API server. */
  anthropicApiKey?: string;
  /** Fixtures for the scripted model; default: every examples/fixtures/*.fixture.json. */
  fixtures?: ScriptedFixture[];
  /**
   * Directories of `*.fixture.json` served besides `fixtures` (a project's own win by name); read again when
   * a request names a fixture not served yet (`wf local up --fixtures DIR`, default `./fixtures`).
   */
  fixtureDirs?: string[];
  /** The Anthropic API's base URL (default the SDK's): a test points it at a scripted server. */
  anthropicBaseUrl?: string;
  /**
   * With an API key: keep each workflow's latest conversation through a recording proxy, served as a fixture
   * at `GET /local/runs/{id}/recording` (`wf run start --record DIR`). Default false.
   */
  record?: boolean;
  /** Loopback ports the egress guard may reach (local demo servers). Never the stack's own port. */
  allowLoopbackPorts?: number[];
  /** Schedule evaluation interval; 0 disables the local scheduler. Default 15 s. */
  schedulerIntervalMs?: number;
  /** Wait between Step Functions retries, scaled down locally (ms). Default 200. */
  retryIntervalMs?: number;
  clock?: Clock;
  /**
   * How long the keyring and secrets files are used before they are read again (as the TTL of the secret
   * caches on AWS): a rotated key or secret takes effect within this. Default 5 minutes.
   */
  secretsMaxAgeMs?: number;
  /** Where notices and lines meant for the person at the terminal go. Default: stdout. */
  print?: (text: string) => void;
  /** Test hook: wraps the Turn handler's dependencies (fault injection, e.g. a crash between dispatch and settle). */
  wrapTurnDeps?: (deps: TurnDeps) => TurnDeps;
  /**
   * Records every AWS call (DynamoDB, Step Functions) with the logical name of the function that made it
   * (tests: the offline IAM check, test/iam). Calls the stack makes for itself are recorded as `local`.
   */
  awsCalls?: AwsCallSink;
  /** Test hook: wraps a graph service step's dependencies (fault injection: a crash between call and settle). */
  wrapServiceDeps?: (deps: ServiceStepDeps) => ServiceStepDeps;
  /**
   * The human-task service of graph runs. Default: shared/human-tasks (task records, signed links to the
   * inbox and the terminal, the form pages). `'in-memory'`: the stand-in `stack.humanTasks`, whose `submit`
   * answers the wait directly (tests of the executor).
   */
  humanTasks?: HumanTaskPort | 'in-memory';
  /**
   * The external engines this stack enables (`kind: external` workflows), as `externalEngines` in CDK.
   * Default: `<dataDir>/engines.json` when present, else none. A loopback engine's port must be in
   * `allowLoopbackPorts`.
   */
  externalEngines?: EnginesConfig;
  /** How long each external `ObserveWait` pauses locally, in ms (the definition's seconds scaled down). Default 1000. */
  externalObserveWaitMs?: number;
  /** Test hook: wraps the external steps' dependencies (fault injection: a crash after the engine accepted). */
  wrapExternalDeps?: (deps: ExternalRunDeps) => ExternalRunDeps;
  /** Test hook: wraps the Deliver handler's dependencies (fault injection, e.g. a crash after sending). */
  wrapDeliverDeps?: (deps: DeliverDeps) => DeliverDeps;
  /**
   * A scripted Messages-API server that is already running (a test's, which outlives the stack and counts
   * the calls); without it and without an API key the stack starts its own.
   */
  scriptedModelUrl?: string;
  /** How often the delegated-jobs sweep runs (docs/jobs.md); 0 disables it. Default 15 s. */
  jobSweepIntervalMs?: number;
  /** Delegated jobs' retry waits (tests shorten them). Default DEFAULT_RETRY_POLICY. */
  jobRetry?: RetryPolicy;
};

/** The local stand-in of Lambda function `name`: its handler runs with that name for the call recorder. */
const asFunction =
  <A extends unknown[], R>(name: string, handler: (...args: A) => R) =>
  (...args: A): R =>
    withFunctionName(name, () => handler(...args));

export type LocalStack = {
  url: string;
  apiKey: string;
  owner: string;
  files: LocalFiles;
  store: DynamoStore;
  sfn: LocalStepFunctions;
  /** The graph state machine (graph runs). */
  graphSfn: LocalStepFunctions;
  /** The external state machine (external runs). */
  externalSfn: LocalStepFunctions;
  /** The in-memory human tasks of graph runs (used with the `humanTasks: 'in-memory'` option). */
  humanTasks: LocalHumanTasks;
  executions: ExecutionsPort;
  inbox: ReturnType<typeof inboxNotifier>;
  scheduler: LocalScheduler;
  modelUrl: string | undefined;
  resumed: string[];
  /** Delegated jobs' dependencies (the sweep, tests). */
  jobs: JobsDeps;
  /** Deliverable runs found without a delivery record on start, delivered (or refused) then. */
  delivered: string[];
  stop(): Promise<void>;
};

const SFN_CREDENTIALS = { accessKeyId: 'local', secretAccessKey: 'local' };

async function exampleFixtures(): Promise<ScriptedFixture[]> {
  const dir = new URL('../../examples/fixtures/', import.meta.url);
  const names = (await readdir(dir)).filter((name) => name.endsWith('.fixture.json'));
  return Promise.all(
    names.map(async (name) => JSON.parse(await readFile(new URL(name, dir), 'utf8')) as ScriptedFixture),
  );
}

export async function startLocalStack(options: LocalStackOptions = {}): Promise<LocalStack> {
  const print = options.print ?? ((text: string) => process.stdout.write(`${text}\n`));
  const clock = options.clock ?? systemClock;
  const files = localFiles(options.dataDir ?? '.local');
  const { apiKey, owner } = ensureLocalFiles(files);
  // The audit signing key (created on first start, private key 0600): signs every owner's chain heads.
  const auditKey = ensureLocalSigningKey(files.dir);
  const closers: (() => Promise<void> | void)[] = [];
  const stop = async () => {
    for (const close of closers.reverse()) await close();
  };
  try {
    // DynamoDB
    let dynamo: DynamoDbLocal | undefined;
    if (!options.dynamodbEndpoint) {
      dynamo = await startDynamoDbLocal(options.inMemory ? {} : { path: files.dynamodb });
      closers.push(() => dynamo?.stop());
    }
    // Every acknowledged transaction committed before the caller goes on (see durable-commits.ts).
    const storeContext = durableLocalCommits(
      createStoreContext({
        endpoint: options.dynamodbEndpoint ?? dynamo!.endpoint,
        tableName: options.tableName ?? 'wf-local',
      }),
    );
    const store = new DynamoStore(storeContext, {
      signer: localKeySigner(readFileSync(auditKey.privateKey, 'utf8')),
    });
    if (options.awsCalls) recordAwsCalls(store.ctx.doc, options.awsCalls);
    await withFunctionName('local', () => ensureTable(store));

    // Claude, or the scripted server through the same SDK
    let modelUrl = options.scriptedModelUrl;
    if (!options.anthropicApiKey && !modelUrl) {
      const dirs = options.fixtureDirs ?? [];
      const scripted = await startScriptedModelServer({
        fixtures: mergeFixtures(options.fixtures ?? (await exampleFixtures()), readFixtureDirs(dirs)),
        reload: () => readFixtureDirs(dirs),
        missingHint: ADD_FIXTURE_HINT,
      });
      closers.push(() => scripted.close());
      modelUrl = scripted.url;
    }
    let recorder: RecordingProxy | undefined;
    if (options.anthropicApiKey && options.record) {
      recorder = await startRecordingProxy({
        upstream: options.anthropicBaseUrl ?? 'https://api.anthropic.com',
      });
      closers.push(() => recorder?.close());
    }
    const anthropicBaseUrl = recorder?.url ?? options.anthropicBaseUrl;
    const model = modelFor(
      options.anthropicApiKey
        ? {
            kind: 'anthropic',
            apiKey: options.anthropicApiKey,
            ...(anthropicBaseUrl ? { baseURL: anthropicBaseUrl } : {}),
            recording: recorder !== undefined,
          }
        : { kind: 'scripted', baseURL: modelUrl! },
    );

    const port = options.port === 0 ? await freePort() : (options.port ?? 8787);
    const url = `http://127.0.0.1:${port}`;
    const cacheOptions = {
      maxAgeMs: options.secretsMaxAgeMs ?? SECRET_CACHE_TTL_MS,
      nowMs: () => clock.nowMs(),
      // Reading a local file is cheap: a link signed with an unknown key re-reads the keyring every time.
      minRefreshIntervalMs: 0,
    };
    const keyring = cachedKeyring(async () => readFileSync(files.keyring, 'utf8'), cacheOptions);
    await keyring.get(); // a broken keyring file stops the start, not the first approval
    const secrets = fileSecrets(files.secrets, cacheOptions);
    const egress = createEgress({
      allowLoopbackPorts: (options.allowLoopbackPorts ?? []).filter((p) => p !== port),
    });
    const publish = { internalHosts: options.internalHosts ?? [] };
    const catalog = actionCatalogFor(store, { publish });
    const inbox = inboxNotifier();
    // Locally the terminal is the approver's inbox: keep it readable; problems still reach stderr.
    const logger = {
      info: () => undefined,
      warn: (message: string, fields: Record<string, unknown>) =>
        process.stderr.write(`${message} ${JSON.stringify(fields)}\n`),
      error: (message: string, fields: Record<string, unknown>) =>
        process.stderr.write(`${message} ${JSON.stringify(fields)}\n`),
    };
    const notifier: Notifier = {
      channel: 'local',
      // The inbox (owner-fenced) and the terminal reach every approver.
      reaches: () => true,
      async notify(notice) {
        await inbox.notify(notice);
        await consoleNotifier(print).notify(notice);
      },
    };
    // Owner notices (failed, denied, expired, undeliverable): the owner's inbox and the terminal.
    const owners: OwnerNoticeDeps = {
      apiBaseUrl: url,
      notifier: {
        channel: 'local',
        async notifyOwner(notice) {
          await inbox.notifyOwner(notice);
          await consoleOwnerNotifier(print).notifyOwner(notice);
        },
      },
    };

    // Step Functions: the synthesized definition, the same handlers, and an endpoint for the SDK.
    let sfnClient: SFNClient | undefined;
    const taskTokens = () => sfnTaskTokens(sfnClient!);
    const definitions = synthesizeLocalDefinitions();
    const { definition, functionByState } = definitions.run;
    const engine = engineDeps({
      store,
      model,
      egress,
      secrets,
      clock: waitingClock(clock),
      ids: randomIds,
      publish,
    });
    const turnDeps = options.wrapTurnDeps ? options.wrapTurnDeps(engine) : engine;
    const answerParent = (run: Parameters<typeof answerParentStep>[1]) =>
      answerParentStep({ store, taskTokens: taskTokens() }, run);
    const simple = () => ({ store, clock, owners, answerParent });
    const deliverDeps: DeliverDeps = {
      store,
      clock,
      destinations: destinations({ catalog, egress, secrets, clock }),
    };
    // A job's run that ends gives its slot back and promotes the next queued job (docs/jobs.md).
    let jobs: JobsDeps | undefined;
    const settlingJobs =
      <E>(handler: (event: E) => Promise<unknown>) =>
      async (event: E) => {
        const result = await handler(event);
        const runId = (event as { runId?: unknown } | undefined)?.runId;
        // As the jobs-sweep function would (on AWS it runs every minute, and the API settles on a poll).
        if (jobs && typeof runId === 'string')
          await withFunctionName('jobs-sweep', () => settleJobOfRun(jobs!, runId)).catch((error: unknown) =>
            logger.warn('job not settled; the sweep will', { runId, error: String(error) }),
          );
        return result;
      };
    const deliver = asFunction(
      'deliver',
      settlingJobs(
        createDeliverHandler(async () => ({
          ...(options.wrapDeliverDeps ? options.wrapDeliverDeps(deliverDeps) : deliverDeps),
          owners,
          answerParent,
        })),
      ),
    );
    const markFailed = asFunction('mark-failed', settlingJobs(createMarkFailedHandler(simple)));
    const retry = options.retryIntervalMs ?? 200;
    const sfn = new LocalStepFunctions({
      definition,
      functionByState,
      clock,
      retryIntervalOverrides: Object.fromEntries(Object.keys(functionByState).map((state) => [state, retry])),
      handlers: {
        turn: asFunction(
          'turn',
          createTurnHandler(async () => turnDeps),
        ),
        'request-approval': asFunction(
          'request-approval',
          createRequestApprovalHandler(async () => ({
            store,
            clock,
            keyring,
            publicBaseUrl: url,
            notifier,
            taskTokens: taskTokens(),
            owners,
            logger,
          })),
        ),
        expire: asFunction('expire', createExpireHandler(simple)),
        'mark-failed': markFailed,
        deliver,
      },
    });
    closers.push(() => sfn.close());

    // The graph state machine: the same way, its own definition and handlers.
    const definitionOf = graphDefinitions(store);
    const humanTasks = localHumanTasks((token, output) => taskTokens().sendSuccess(token, output), print);
    const humanTaskService: HumanTaskPort =
      options.humanTasks === 'in-memory'
        ? humanTasks
        : (options.humanTasks ??
          humanTaskPort({
            store,
            clock,
            keyring,
            taskTokens: taskTokens(),
            publicBaseUrl: url,
            logger,
            notifier,
          }));
    const graphDeps = { store, definitionOf, clock };
    const serviceDeps: ServiceStepDeps = {
      ...graphDeps,
      actions: catalog,
      egress,
      secrets,
    };
    const graphSfn = new LocalStepFunctions({
      definition: definitions.graph.definition,
      functionByState: definitions.graph.functionByState,
      stateMachineArn: 'arn:aws:states:local:000000000000:stateMachine:graph',
      clock,
      retryIntervalOverrides: Object.fromEntries(
        Object.keys(definitions.graph.functionByState).map((state) => [state, retry]),
      ),
      handlers: {
        'graph-advance': asFunction(
          'graph-advance',
          createGraphAdvanceHandler(async () => graphDeps),
        ),
        'graph-service': asFunction(
          'graph-service',
          createGraphServiceHandler(async () =>
            options.wrapServiceDeps ? options.wrapServiceDeps(serviceDeps) : serviceDeps,
          ),
        ),
        'graph-wait': asFunction(
          'graph-wait',
          createGraphWaitHandler(async () => ({
            ...graphDeps,
            ids: randomIds,
            executions,
            humanTasks: humanTaskService,
            answer: (token: string, output: object) => taskTokens().sendSuccess(token, output),
          })),
        ),
        deliver,
        'mark-failed': markFailed,
      },
    });
    closers.push(() => graphSfn.close());

    // The external state machine: the same way (external-local.ts).
    const engines = localEngineRegistry(files.dir, options.externalEngines);
    const externalSfn = localExternalMachine({
      definition: definitions.external,
      store,
      clock,
      secrets,
      engines,
      allowLoopbackPorts: options.allowLoopbackPorts ?? [],
      ownPort: port,
      handlers: { deliver, 'mark-failed': markFailed },
      asFunction,
      retryIntervalMs: retry,
      observeWaitMs: options.externalObserveWaitMs ?? 1000,
      wrap: options.wrapExternalDeps,
    });
    closers.push(() => externalSfn.close());
    const endpoint = await startLocalSfnEndpoint([sfn, graphSfn, externalSfn], { port: 0 });
    closers.push(() => endpoint.close());
    sfnClient = new SFNClient({
      endpoint: endpoint.url,
      region: 'local',
      credentials: SFN_CREDENTIALS,
      maxAttempts: 1,
    });
    if (options.awsCalls) recordAwsCalls(sfnClient, options.awsCalls);
    const executions = sfnExecutions(
      sfnClient,
      sfn.stateMachineArn,
      graphSfn.stateMachineArn,
      externalSfn.stateMachineArn,
    );
    const models = { prices: engine.config.prices, roles: engine.config.roles };
    jobs = {
      store,
      executions,
      clock,
      ids: randomIds,
      models,
      ...(options.jobRetry ? { retry: options.jobRetry } : {}),
    };

    // HTTP: the API, the approval pages, and the local extras, for the configured host names only.
    const authenticator = apiKeyAuthenticator(readFileSync(files.apiKeys, 'utf8'));
    const app = new Hono();
    app.use('*', hostGuard(allowedHosts(port, options.hostNames)));
    // Which Lambda function each route stands in for (the call recorder's function name).
    app.use('/approvals/*', (_c, next) => withFunctionName('approval-http', next));
    app.use('/human-tasks/*', (_c, next) => withFunctionName('approval-http', next));
    app.use('/v1/*', (_c, next) => withFunctionName('api', next));
    app.use('/local/*', (_c, next) => withFunctionName('api', next));
    app.route(
      '/',
      inboxRoutes({
        inbox,
        clock,
        // The inbox is the owner's: a delegated-jobs client's key does not open it.
        authenticator: ownersOnly(authenticator),
        sessions: sessionTable(clock),
        origin: new URL(url).origin,
      }),
    );
    app.route('/', recordingRoutes({ store, authenticator, recorder }));
    app.route(
      '/',
      createApprovalApp({
        store,
        clock,
        keyring,
        taskTokens: taskTokens(),
        publicBaseUrl: url,
        actions: catalog,
        logger,
      }),
    );
    // Human-task forms: the same signed-page rules and keyring; links reach the same inbox and terminal.
    app.route(
      '/',
      createHumanTaskApp({ store, clock, keyring, taskTokens: taskTokens(), publicBaseUrl: url, logger }),
    );
    // The console calls the API in-process as the signed-in owner (shared/console/in-process.ts).
    const inProcess = inProcessApi(authenticator);
    const api = createApiApp({
      store,
      executions,
      clock,
      ids: randomIds,
      authenticator: inProcess.authenticator,
      triggerSync: localTriggerSync(store),
      auditVerifier: localKeyVerifierFromFile(auditKey.publicKey),
      local: { events: true },
      jobs: { models, ...(options.jobRetry ? { retry: options.jobRetry } : {}) },
      graph: { taskTokens: taskTokens(), humanTasks: humanTaskService },
      externalEngines: engines,
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
        origin: new URL(url).origin,
      }),
    );
    app.route('/', api);
    const server: ServerType = await new Promise((resolve) => {
      const started = serve({ fetch: app.fetch, port, hostname: '127.0.0.1' }, () => resolve(started));
    });
    closers.push(
      () =>
        new Promise<void>((resolve) => {
          server.close(() => resolve());
          // Idle keep-alive connections (a browser's, a client's) would hold close() open indefinitely.
          if ('closeAllConnections' in server) server.closeAllConnections();
        }),
    );

    // Schedules, and runs that were in flight when the stack last stopped.
    // Started as start-run: its timer callbacks inherit that name (EventBridge Scheduler invokes start-run).
    const scheduler = withFunctionName('start-run', () =>
      startLocalScheduler(
        { store, executions, clock, ids: randomIds },
        { intervalMs: options.schedulerIntervalMs ?? 15_000 },
      ),
    );
    closers.push(() => scheduler.stop());
    // Runs that ended deliverable while the stack died before Deliver recorded anything, through the same
    // handler; before resuming, so no resumed execution is on its way to Deliver the same run meanwhile.
    const delivered = await withFunctionName('local', () => deliverLeftovers(store, deliver, logger));
    const resumed: string[] = [];
    await withFunctionName('local', async () => {
      for (const run of await listActiveRuns(store)) {
        await resumeRun({ store, executions }, run, randomIds.next('r').slice(2, 10));
        resumed.push(run.runId);
      }
    });
    // Delegated jobs: what a crash left half done, then a periodic sweep (EventBridge → jobs-sweep on AWS).
    const jobDeps = jobs;
    const sweep = () =>
      withFunctionName('jobs-sweep', () => sweepJobs(jobDeps)).catch((error: unknown) =>
        logger.warn('jobs sweep failed', { error: String(error) }),
      );
    await sweep();
    const sweepEvery = options.jobSweepIntervalMs ?? 15_000;
    if (sweepEvery > 0) {
      const timer = setInterval(sweep, sweepEvery);
      closers.push(() => clearInterval(timer));
    }
    return {
      url,
      apiKey,
      jobs: jobDeps,
      owner,
      files,
      store,
      sfn,
      graphSfn,
      externalSfn,
      humanTasks,
      executions,
      inbox,
      scheduler,
      modelUrl,
      resumed,
      delivered,
      stop,
    };
  } catch (error) {
    await stop();
    throw error;
  }
}
