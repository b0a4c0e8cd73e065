/** The composition of graph-advance: Advance and CompleteStep need the store and the definitions only. */
import type { AdvanceDeps } from '../../graph-run/advance.ts';
import { systemClock } from '../clock.ts';
import { awsGraphDefinitions } from './graph-definitions.ts';
import { awsStore } from './store.ts';

export async function graphAdvanceDeps(): Promise<AdvanceDeps> {
  return { store: awsStore(), definitionOf: awsGraphDefinitions(), clock: systemClock };
}
