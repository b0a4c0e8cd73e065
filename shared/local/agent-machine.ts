/**
 * The agent run state machine on the local stack: the CDK-synthesized definition run by
 * aws-local-stepfunctions, its Task states calling the same handler modules (functions/) in process.
 */
import { createExpireHandler } from '../../functions/expire.ts';
import { createRequestApprovalHandler } from '../../functions/request-approval.ts';
import { createTurnHandler } from '../../functions/turn.ts';
import type { LocalDefinition } from '../../infra/local-definition.ts';
import type { TaskTokensPort } from '../approvals-http/index.ts';
import type { TurnDeps } from '../core/engine.ts';
import type { LocalRunEnds } from './run-end-local.ts';
import type { LocalServices } from './services-local.ts';
import { LocalStepFunctions } from './sfn/index.ts';
import { asFunction, retryEvery } from './stack-parts.ts';

export function localAgentMachine(args: {
  services: LocalServices;
  definition: LocalDefinition;
  /** The Turn function's dependencies at each invocation (the container's: stack-options.ts `newTurnContainer`). */
  turnDeps: () => TurnDeps;
  taskTokens: TaskTokensPort;
  ends: LocalRunEnds;
  retryMs: number;
}): LocalStepFunctions {
  const { services, ends, taskTokens } = args;
  const { clock } = services;
  const { definition, functionByState } = args.definition;
  return new LocalStepFunctions({
    definition,
    functionByState,
    clock,
    retryIntervalOverrides: retryEvery(functionByState, args.retryMs),
    handlers: {
      turn: asFunction(
        'turn',
        createTurnHandler(async () => args.turnDeps()),
      ),
      ...approvalFunctions(services, taskTokens, ends),
      'mark-failed': ends.markFailed,
      deliver: ends.deliver,
    },
  });
}

/**
 * The approval service's two functions (RequestApproval, Expire): a turn's approval waits on the agent machine
 * and a gated graph service step's on the graph machine use the same ones (docs/approvals.md).
 */
export function approvalFunctions(services: LocalServices, taskTokens: TaskTokensPort, ends: LocalRunEnds) {
  const { store, clock, keyring, url, notifier, owners, logger } = services;
  return {
    'request-approval': asFunction(
      'request-approval',
      createRequestApprovalHandler(async () => ({
        store,
        clock,
        keyring,
        publicBaseUrl: url,
        notifier,
        taskTokens,
        owners,
        logger,
      })),
    ),
    expire: asFunction('expire', createExpireHandler(ends.endDeps)),
  };
}
