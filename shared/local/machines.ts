/**
 * The local stack's three state machines (agent, graph, external), a local Step Functions endpoint for the
 * SDK calls (StartExecution, SendTaskSuccess, …) so those code paths are the AWS ones, and the delegated
 * jobs' dependencies built on them.
 */
import type { SFNClient } from '@aws-sdk/client-sfn';
import { sfnTaskTokens, type TaskTokensPort } from '../approvals-http/index.ts';
import type { TurnDeps } from '../core/engine.ts';
import type { ModelPort } from '../core/ports.ts';
import type { ExternalEngineRegistry } from '../external/index.ts';
import type { HumanTaskPort } from '../graph-run/human-task-port.ts';
import type { JobsDeps } from '../jobs/index.ts';
import type { ExecutionsPort } from '../runs/index.ts';
import { randomIds, waitingClock } from '../runtime/clock.ts';
import { engineDeps } from '../runtime/engine-deps.ts';
import { sfnExecutions } from '../runtime/executions-sfn.ts';
import { DynamoStore } from '../store/index.ts';
import { localAgentMachine } from './agent-machine.ts';
import { localEngineRegistry, localExternalMachine } from './external-local.ts';
import type { LocalFiles } from './files.ts';
import { localGraphMachine } from './graph-machine.ts';
import type { LocalHumanTasks } from './human-tasks-local.ts';
import { localRunEnds } from './run-end-local.ts';
import type { LocalServices } from './services-local.ts';
import { type LocalStepFunctions, type SfnRefusal, startLocalSfnEndpoint } from './sfn/index.ts';
import { localSfnClients } from './sfn-clients.ts';
import type { LocalStackOptions } from './stack-options.ts';
import { asFunction, type Closers } from './stack-parts.ts';

export type LocalMachines = {
  sfn: LocalStepFunctions;
  graphSfn: LocalStepFunctions;
  externalSfn: LocalStepFunctions;
  humanTasks: LocalHumanTasks;
  humanTaskService: HumanTaskPort;
  executions: ExecutionsPort;
  /** What the Step Functions endpoint refused (LocalStack.sfnRefusals). */
  sfnRefusals: readonly SfnRefusal[];
  taskTokens: TaskTokensPort;
  jobs: JobsDeps;
  /** Model prices and roles (delegated jobs' admission). */
  models: JobsDeps['models'];
  engines: ExternalEngineRegistry;
  /** The Deliver handler (runs a crash left undelivered go through it on start). */
  deliver: (event: unknown) => Promise<unknown>;
};

/**
 * Task-token answers through the endpoint's SDK client, which exists only once every machine is built: the
 * handlers are built first and answer later.
 */
function lateTaskTokens(client: () => SFNClient | undefined): TaskTokensPort {
  let port: TaskTokensPort | undefined;
  const current = () => {
    const sdk = client();
    if (!sdk) throw new Error('the local Step Functions endpoint is not started yet');
    port ??= sfnTaskTokens(sdk);
    return port;
  };
  return {
    sendSuccess: (token, output) => current().sendSuccess(token, output),
    sendFailure: (token, error, cause) => current().sendFailure(token, error, cause),
  };
}

export async function startLocalMachines(
  options: LocalStackOptions,
  services: LocalServices,
  model: ModelPort,
  files: LocalFiles,
  closers: Closers,
): Promise<LocalMachines> {
  const { store, clock, secrets, port } = services;
  let sfnClient: SFNClient | undefined;
  let executions: ExecutionsPort | undefined;
  let jobs: JobsDeps | undefined;
  const taskTokens = lateTaskTokens(() => sfnClient);
  // The CDK app is imported only to synthesize: a caller that brings the definitions loads none of it.
  const definitions =
    options.definitions ?? (await import('../../infra/local-definition.ts')).synthesizeLocalDefinitions();
  const compose = (turnStore: DynamoStore) =>
    engineDeps({
      store: turnStore,
      model,
      egress: services.egress,
      secrets,
      clock: waitingClock(clock),
      ids: randomIds,
      publish: services.publish,
    });
  const wrap = (deps: TurnDeps) => (options.wrapTurnDeps ? options.wrapTurnDeps(deps) : deps);
  const engine = compose(store);
  const warmTurn = wrap(engine);
  const ends = localRunEnds(services, options, {
    taskTokens,
    jobs: () => jobs,
    executions: () => executions,
  });
  const retryMs = options.retryIntervalMs ?? 200;
  const sfn = localAgentMachine({
    services,
    definition: definitions.run,
    // A new container composes its dependencies again, on a store of its own (its caches empty).
    turnDeps: () => (options.newTurnContainer?.() ? wrap(compose(new DynamoStore(store.ctx))) : warmTurn),
    taskTokens,
    ends,
    retryMs,
  });
  closers.push(() => sfn.close());
  const graph = localGraphMachine({
    services,
    options,
    definition: definitions.graph,
    taskTokens,
    executions: () => executions!,
    ends,
    retryMs,
  });
  closers.push(() => graph.graphSfn.close());
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
    handlers: { deliver: ends.deliver, 'mark-failed': ends.markFailed },
    asFunction,
    retryIntervalMs: retryMs,
    observeWaitMs: options.externalObserveWaitMs ?? 1000,
    wrap: options.wrapExternalDeps,
    answerParent: ends.answerParent,
    owners: services.owners,
  });
  closers.push(() => externalSfn.close());

  const endpoint = await startLocalSfnEndpoint([sfn, graph.graphSfn, externalSfn], {
    port: 0,
    ...(options.onSfnRefusal ? { onRefusal: options.onSfnRefusal } : {}),
  });
  closers.push(() => endpoint.close());
  const clients = localSfnClients(endpoint.url, options.awsCalls);
  sfnClient = clients.answers;
  executions = sfnExecutions(
    clients.executions,
    sfn.stateMachineArn,
    graph.graphSfn.stateMachineArn,
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
  return {
    sfn,
    ...graph,
    externalSfn,
    executions,
    sfnRefusals: endpoint.refusals,
    taskTokens,
    jobs,
    models,
    engines,
    deliver: ends.deliver,
  };
}
