/** The composition of graph-service: one gated action call (catalog, egress, the owner's credentials). */
import type { ServiceStepDeps } from '../../graph-run/service-step.ts';
import { systemClock } from '../clock.ts';
import { awsCatalog } from './catalog.ts';
import { awsEgress } from './egress.ts';
import { awsGraphDefinitions } from './graph-definitions.ts';
import { ownerSecrets } from './owner-secrets.ts';
import { awsStore } from './store.ts';

export async function graphServiceDeps(): Promise<ServiceStepDeps> {
  const store = awsStore();
  return {
    store,
    definitionOf: awsGraphDefinitions(),
    clock: systemClock,
    actions: awsCatalog(store),
    egress: awsEgress(),
    secrets: ownerSecrets(),
  };
}
