/**
 * The graph state machine on the local stack: the same way as the agent machine (agent-machine.ts), its own
 * definition and handlers, and the human-task service graph runs wait on.
 */
import { createGraphAdvanceHandler } from '../../functions/graph-advance.ts';
import { createGraphServiceHandler } from '../../functions/graph-service.ts';
import { createGraphWaitHandler } from '../../functions/graph-wait.ts';
import { createHumanTaskHandler } from '../../functions/human-task.ts';
import type { LocalDefinition } from '../../infra/local-definition.ts';
import type { TaskTokensPort } from '../approvals-http/index.ts';
import { graphDefinitions } from '../graph-run/definitions.ts';
import type { HumanTaskPort } from '../graph-run/human-task-port.ts';
import type { ServiceStepDeps } from '../graph-run/service-step.ts';
import { humanTaskExpiry } from '../human-tasks/expiry.ts';
import { humanTaskPort } from '../human-tasks/index.ts';
import type { ExecutionsPort } from '../runs/index.ts';
import { randomIds } from '../runtime/clock.ts';
import { approvalFunctions } from './agent-machine.ts';
import { type LocalHumanTasks, localHumanTasks } from './human-tasks-local.ts';
import type { LocalRunEnds } from './run-end-local.ts';
import type { LocalServices } from './services-local.ts';
import { LocalStepFunctions } from './sfn/index.ts';
import type { LocalStackOptions } from './stack-options.ts';
import { asFunction, retryEvery } from './stack-parts.ts';

export type LocalGraphMachine = {
  graphSfn: LocalStepFunctions;
  /** The in-memory stand-in (used with the `humanTasks: 'in-memory'` option). */
  humanTasks: LocalHumanTasks;
  /** The human-task service graph runs use. */
  humanTaskService: HumanTaskPort;
};

export function localGraphMachine(args: {
  services: LocalServices;
  options: Pick<LocalStackOptions, 'humanTasks' | 'wrapServiceDeps'>;
  definition: LocalDefinition;
  taskTokens: TaskTokensPort;
  /** The executions port exists once the machines' endpoint is up: read at each wait. */
  executions: () => ExecutionsPort;
  ends: LocalRunEnds;
  retryMs: number;
}): LocalGraphMachine {
  const { services, options, taskTokens, ends } = args;
  const { store, clock, keyring, url, logger, notifier, print } = services;
  const definitionOf = graphDefinitions(store);
  const humanTasks = localHumanTasks((token, output) => taskTokens.sendSuccess(token, output), print);
  const humanTaskService: HumanTaskPort =
    options.humanTasks === 'in-memory'
      ? humanTasks
      : (options.humanTasks ??
        humanTaskPort({ store, clock, keyring, taskTokens, publicBaseUrl: url, logger, notifier }));
  const graphDeps = { store, definitionOf, clock };
  // CompleteStep expires a timed-out task's record, whichever service opened it (the stand-in keeps none).
  const advanceDeps = { ...graphDeps, humanTasks: humanTaskExpiry({ store, clock }) };
  const serviceDeps: ServiceStepDeps = {
    ...graphDeps,
    actions: services.catalog,
    egress: services.egress,
    secrets: services.secrets,
  };
  const { definition, functionByState } = args.definition;
  const graphSfn = new LocalStepFunctions({
    definition,
    functionByState,
    stateMachineArn: 'arn:aws:states:local:000000000000:stateMachine:graph',
    clock,
    retryIntervalOverrides: retryEvery(functionByState, args.retryMs),
    handlers: {
      'graph-advance': asFunction(
        'graph-advance',
        createGraphAdvanceHandler(async () => advanceDeps),
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
          executions: args.executions(),
          answer: (token: string, output: object) => taskTokens.sendSuccess(token, output),
        })),
      ),
      // As on AWS, a function of its own: the only graph function given the keyring and the notifier.
      'human-task': asFunction(
        'human-task',
        createHumanTaskHandler(async () => ({ ...graphDeps, humanTasks: humanTaskService })),
      ),
      // A gated service step's approval wait: the same approval service as the agent machine's.
      ...approvalFunctions(services, taskTokens, ends),
      deliver: ends.deliver,
      'mark-failed': ends.markFailed,
    },
  });
  return { graphSfn, humanTasks, humanTaskService };
}
