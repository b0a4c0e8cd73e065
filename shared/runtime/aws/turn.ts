/** The composition of the turn function: store, model, egress, the workflows' credentials, the catalog. */
import type { TurnDeps } from '../../core/engine.ts';
import { randomIds, systemClock } from '../clock.ts';
import { engineDeps } from '../engine-deps.ts';
import { awsPublishPolicy } from './catalog.ts';
import { awsEgress } from './egress.ts';
import { awsModel } from './model.ts';
import { ownerSecrets } from './owner-secrets.ts';
import { awsStore } from './store.ts';

export async function turnDeps(): Promise<TurnDeps> {
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
