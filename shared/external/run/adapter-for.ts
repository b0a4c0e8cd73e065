/**
 * Builds the `adapterFor` port from the deployment's registry: the run's owner, the workflow's credential,
 * and the engine's answers redacted for that owner (redacting-adapter.ts).
 */
import type { Clock, SecretsPort } from '../../core/ports.ts';
import type { Run } from '../../schemas/run.ts';
import type { ExternalDefinition } from '../definition.ts';
import type { ExternalHttpPort } from '../ports.ts';
import type { ExternalEngineRegistry } from '../registry.ts';
import { redactingAdapter } from './redacting-adapter.ts';

export function adapterFactory(deps: {
  engines: ExternalEngineRegistry;
  clock: Clock;
  secrets: SecretsPort;
  http: ExternalHttpPort;
  secretNamePrefix?: string;
}) {
  return (run: Run, definition: ExternalDefinition) => {
    const slot = definition.credential === undefined ? undefined : definition.credRefs[definition.credential];
    const credential = slot
      ? { owner: run.owner, secret: slot.secret, ...(slot.field === undefined ? {} : { field: slot.field }) }
      : undefined;
    const adapter = deps.engines.create(definition.engine, {
      owner: run.owner,
      // The reference is the owner's: the adapter resolves it at call time, for this owner only.
      ...(credential ? { credential } : {}),
      ...(deps.secretNamePrefix ? { secretNamePrefix: deps.secretNamePrefix } : {}),
      clock: deps.clock,
      secrets: deps.secrets,
      http: deps.http,
    });
    // Every answer the engine gives is redacted for the run's owner before a step stores or delivers it.
    return redactingAdapter(adapter, {
      owner: run.owner,
      credential,
      secrets: deps.secrets,
      clock: deps.clock,
    });
  };
}
