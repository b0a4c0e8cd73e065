/**
 * The adapter factories built into the product, for composition roots to hand to `createEngineRegistry`.
 * Kept out of index.ts: the contract and the registry stay pure, this pulls in the HTTP adapter.
 *
 * @example
 * const registry = createEngineRegistry(BUILTIN_ENGINE_FACTORIES, config.externalEngines);
 */
import { httpRuntimeFactory } from './http/adapter.ts';
import type { AnyExternalAdapterFactory } from './registry.ts';

export const BUILTIN_ENGINE_FACTORIES: readonly AnyExternalAdapterFactory[] = [httpRuntimeFactory];
