/**
 * The external state machine on the local stack: the synthesized definition on aws-local-stepfunctions, the
 * same handler as on AWS (functions/external.ts), the deployment's engines from the `externalEngines`
 * option or `<dataDir>/engines.json`, and the adapters' HTTP through the egress guard (loopback engines need
 * their port in `allowLoopbackPorts`, as the fixture engine's demo does). A run a step ends `failed` or
 * `denied` is told to its owner through the stack's owner notices (the inbox and the terminal), as MarkFailed's.
 */
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { createExternalHandler } from '../../functions/external.ts';
import type { LocalDefinition } from '../../infra/local-definition.ts';
import type { Clock, SecretsPort } from '../core/ports.ts';
import type { RunStore } from '../core/store-port.ts';
import { BUILTIN_ENGINE_FACTORIES } from '../external/builtins.ts';
import { createGuardedHttp } from '../external/http/guarded-http.ts';
import {
  createEngineRegistry,
  type EnginesConfig,
  EnginesConfigSchema,
  type ExternalEngineRegistry,
} from '../external/index.ts';
import { pollingOnly } from '../external/polling-only.ts';
import { adapterFactory, type ExternalRunDeps } from '../external/run/index.ts';
import type { OwnerNoticeDeps } from '../notify/index.ts';
import { LocalStepFunctions } from './sfn/index.ts';

/** The local deployment's engines: the option when given, else `<dataDir>/engines.json`, else none. */
export function localEngineRegistry(
  dataDir: string,
  option: EnginesConfig | undefined,
): ExternalEngineRegistry {
  const file = join(dataDir, 'engines.json');
  const config = option ?? (existsSync(file) ? (JSON.parse(readFileSync(file, 'utf8')) as unknown) : {});
  return createEngineRegistry(BUILTIN_ENGINE_FACTORIES, pollingOnly(EnginesConfigSchema.parse(config)));
}

export function localExternalMachine(args: {
  definition: LocalDefinition;
  store: RunStore;
  clock: Clock;
  secrets: SecretsPort;
  engines: ExternalEngineRegistry;
  allowLoopbackPorts: number[];
  /** The stack's own port: never reachable by an adapter. */
  ownPort: number;
  handlers: {
    deliver: (event: unknown) => Promise<unknown>;
    'mark-failed': (event: unknown) => Promise<unknown>;
  };
  asFunction: <A extends unknown[], R>(name: string, handler: (...args: A) => R) => (...args: A) => R;
  retryIntervalMs: number;
  /** How long each ObserveWait and StartWait pauses locally (ms), whatever `waitSeconds` says. */
  observeWaitMs: number;
  wrap?: ((deps: ExternalRunDeps) => ExternalRunDeps) | undefined;
  /** A graph step's child run that ended answers the step's wait (as on AWS: functions/external.ts). */
  answerParent?: ExternalRunDeps['answerParent'];
  /** Where a run a step ends `failed` or `denied` is told to its owner (the inbox and the terminal locally). */
  owners?: OwnerNoticeDeps | undefined;
}): LocalStepFunctions {
  const deps: ExternalRunDeps = {
    store: args.store,
    clock: args.clock,
    ...(args.answerParent ? { answerParent: args.answerParent } : {}),
    adapterFor: adapterFactory({
      engines: args.engines,
      clock: args.clock,
      secrets: args.secrets,
      http: createGuardedHttp({
        allowLoopbackPorts: args.allowLoopbackPorts.filter((port) => port !== args.ownPort),
      }),
    }),
  };
  const wrapped = args.wrap ? args.wrap(deps) : deps;
  return new LocalStepFunctions({
    definition: args.definition.definition,
    functionByState: args.definition.functionByState,
    stateMachineArn: 'arn:aws:states:local:000000000000:stateMachine:external',
    clock: args.clock,
    retryIntervalOverrides: Object.fromEntries(
      Object.keys(args.definition.functionByState).map((state) => [state, args.retryIntervalMs]),
    ),
    waitTimeOverrides: { ObserveWait: args.observeWaitMs, StartWait: args.observeWaitMs },
    handlers: {
      external: args.asFunction(
        'external',
        createExternalHandler(async () => ({ ...wrapped, owners: args.owners })),
      ),
      deliver: args.handlers.deliver,
      'mark-failed': args.handlers['mark-failed'],
    },
  });
}
