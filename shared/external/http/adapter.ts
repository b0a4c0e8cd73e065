/**
 * The HTTP runtime adapter (`http-runtime`): the contract over a Flue-style keyed-admission engine
 * (protocol.ts), every call through the egress guard with the owner's credential (client.ts).
 */
import type { ExternalAdapter } from '../contract.ts';
import { ExternalRefusedError } from '../errors.ts';
import type { AdapterContext } from '../ports.ts';
import type { ExternalAdapterFactory } from '../registry.ts';
import { listArtifacts, openArtifact } from './artifacts.ts';
import { verifyCallback } from './callback.ts';
import { HttpRuntimeClient } from './client.ts';
import { dispatch } from './dispatch.ts';
import { findExecution } from './find.ts';
import { ExecutionKeySchema } from './protocol.ts';
import { type HttpRuntimeSettings, HttpRuntimeSettingsSchema } from './settings.ts';
import { cancelExecution, observeExecution } from './status.ts';

/** The registry name of the built-in HTTP runtime adapter. */
export const HTTP_RUNTIME_ENGINE = 'http-runtime';

/**
 * An HTTP runtime adapter for one owner. Keys that are not URL-safe are refused before anything is sent.
 *
 * @example
 * const adapter = createHttpRuntimeAdapter(HttpRuntimeSettingsSchema.parse({ endpoint }), context);
 * const { execution } = await adapter.start('run_123.external', { task: 'build' });
 * const seen = await adapter.observe(execution.key, execution.incarnation);
 */
export function createHttpRuntimeAdapter(
  settings: HttpRuntimeSettings,
  context: AdapterContext,
): ExternalAdapter {
  const engine = HTTP_RUNTIME_ENGINE;
  const client = new HttpRuntimeClient(engine, settings, context);
  const checked = (key: string): string => {
    const problem = ExecutionKeySchema.safeParse(key).error?.issues[0]?.message;
    if (problem !== undefined) throw new ExternalRefusedError(engine, key, `key ${problem}`, { sent: false });
    return key;
  };
  return {
    engine,
    start: async (key, payload) => dispatch(client, settings, checked(key), payload),
    observe: async (key, incarnation) => observeExecution(client, context.clock, checked(key), incarnation),
    find: async (key) => findExecution(client, checked(key)),
    cancel: async (key, incarnation) => cancelExecution(client, checked(key), incarnation),
    listArtifacts: async (key, incarnation) => listArtifacts(client, checked(key), incarnation),
    openArtifact: async (key, incarnation, path) =>
      openArtifact(client, settings, checked(key), incarnation, path),
    verifyCallback: (request) => verifyCallback(engine, settings, context, request),
  };
}

/** The registry's factory of `http-runtime`. */
export const httpRuntimeFactory: ExternalAdapterFactory<HttpRuntimeSettings> = {
  engine: HTTP_RUNTIME_ENGINE,
  settings: HttpRuntimeSettingsSchema,
  create: createHttpRuntimeAdapter,
};
