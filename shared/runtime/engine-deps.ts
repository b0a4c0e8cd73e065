/** Assembles the turn engine's dependencies from adapters; shared by the AWS and the local composition. */

import {
  type ConnectorOptions,
  connectorActions,
  createActionCatalog,
  type HttpBuiltinOptions,
  httpBuiltins,
} from '../actions/index.ts';
import type { PublishPolicy } from '../actions/publish-policy.ts';
import type { EngineConfig, TurnDeps } from '../core/engine.ts';
import type { EgressPort, Ids, ModelPort, SecretsPort, WaitingClock } from '../core/ports.ts';
import { DEFAULT_PRICES } from '../core/pricing.ts';
// Not the ../model/index.ts barrel: through it every bundle of this module would reach the Bedrock client, whose
// import() makes esbuild wrap the AWS SDK core lazily (test/infra/lazy-wrappers.test.ts).
import { DEFAULT_MODEL_CONFIG } from '../model/resolve.ts';
import type { DynamoStore } from '../store/index.ts';

/** Turns per Step Functions execution before continue-as-new: ~15 history events per gated turn ≪ 25,000. */
export const TURNS_PER_EXECUTION = 500;

export const defaultEngineConfig = (overrides: Partial<EngineConfig> = {}): EngineConfig => ({
  prices: DEFAULT_PRICES,
  roles: { ...DEFAULT_MODEL_CONFIG.roles },
  turnsPerExecution: TURNS_PER_EXECUTION,
  ...overrides,
});

/** Options of the action catalog; production passes none (strict defaults). */
export type ActionCatalogOptions = {
  http?: HttpBuiltinOptions;
  connectors?: ConnectorOptions;
  /** The operator's internal hosts (external publishing is decided against them). */
  publish?: PublishPolicy;
};

/**
 * The action catalog of a deployment: built-ins (notes kept in the store, fetch_url and http_request through
 * the egress port) plus the connectors each workflow declares.
 */
export const actionCatalogFor = (store: DynamoStore, options: ActionCatalogOptions = {}) =>
  createActionCatalog({
    notes: store,
    httpBuiltins: httpBuiltins({ ...options.http, ...(options.publish ? { publish: options.publish } : {}) }),
    connectorAction: connectorActions({
      ...options.connectors,
      ...(options.publish ? { publish: options.publish } : {}),
    }),
  });

export function engineDeps(args: {
  store: DynamoStore;
  model: ModelPort;
  egress: EgressPort;
  secrets: SecretsPort;
  clock: WaitingClock;
  ids: Ids;
  config?: Partial<EngineConfig>;
  publish?: PublishPolicy;
}): TurnDeps {
  return {
    store: args.store,
    model: args.model,
    actions: actionCatalogFor(args.store, args.publish ? { publish: args.publish } : {}),
    egress: args.egress,
    secrets: args.secrets,
    clock: args.clock,
    ids: args.ids,
    config: defaultEngineConfig(args.config),
    // Delegated jobs' live grants are read from the same table.
    delegation: args.store,
  };
}
