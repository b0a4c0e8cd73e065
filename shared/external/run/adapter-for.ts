/** Builds the `adapterFor` port from the deployment's registry: the run's owner, the workflow's credential. */
import type { Clock, SecretsPort } from '../../core/ports.ts';
import type { Run } from '../../schemas/run.ts';
import type { ExternalDefinition } from '../definition.ts';
import type { ExternalHttpPort } from '../ports.ts';
import type { ExternalEngineRegistry } from '../registry.ts';

export function adapterFactory(deps: {
  engines: ExternalEngineRegistry;
  clock: Clock;
  secrets: SecretsPort;
  http: ExternalHttpPort;
  secretNamePrefix?: string;
}) {
  return (run: Run, definition: ExternalDefinition) => {
    const slot = definition.credential === undefined ? undefined : definition.credRefs[definition.credential];
    return deps.engines.create(definition.engine, {
      owner: run.owner,
      // The reference is the owner's: the adapter resolves it at call time, for this owner only.
      ...(slot
        ? {
            credential: {
              owner: run.owner,
              secret: slot.secret,
              ...(slot.field === undefined ? {} : { field: slot.field }),
            },
          }
        : {}),
      ...(deps.secretNamePrefix ? { secretNamePrefix: deps.secretNamePrefix } : {}),
      clock: deps.clock,
      secrets: deps.secrets,
      http: deps.http,
    });
  };
}
