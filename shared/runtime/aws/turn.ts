/** The composition of the turn function: store, model, egress, the workflows' credentials, the catalog. */
import type { TurnDeps } from '../../core/engine.ts';
import { randomIds, systemClock } from '../clock.ts';
import { engineDeps } from '../engine-deps.ts';
import { awsPublishPolicy } from './catalog.ts';
import { awsEgress } from './egress.ts';
import { awsModel } from './model.ts';
import { ownerSecrets } from './owner-secrets.ts';
import { awsStore } from './store.ts';

let deps: Promise<TurnDeps> | undefined;

/**
 * The turn's dependencies, composed once per container: every part is the container's already (the store and
 * its caches, the model, egress, secrets), and the action catalog (its tool schemas, built-ins and connector
 * factory) holds nothing of one invocation, so the handler no longer builds it again on every turn (about a
 * millisecond of CPU per turn; issue #16). A composition that failed (the model's key unreadable) is tried
 * again on the next invocation.
 */
export function turnDeps(): Promise<TurnDeps> {
  deps ??= composeTurnDeps().catch((error: unknown) => {
    deps = undefined;
    throw error;
  });
  return deps;
}

async function composeTurnDeps(): Promise<TurnDeps> {
  return engineDeps({
    store: awsStore(),
    model: await awsModel(),
    egress: awsEgress(),
    secrets: ownerSecrets(),
    clock: systemClock,
    ids: randomIds,
    publish: awsPublishPolicy(),
  });
}
