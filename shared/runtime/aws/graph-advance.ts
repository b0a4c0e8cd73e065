/**
 * The composition of graph-advance: Advance and CompleteStep need the store and the definitions; a human
 * task's timed-out wait also expires its task record (the same table: no keyring, no topic).
 */
import type { CompleteStepDeps } from '../../graph-run/complete-step.ts';
import { humanTaskExpiry } from '../../human-tasks/expiry.ts';
import { systemClock } from '../clock.ts';
import { awsGraphDefinitions } from './graph-definitions.ts';
import { awsStore } from './store.ts';

export async function graphAdvanceDeps(): Promise<CompleteStepDeps> {
  const store = awsStore();
  return {
    store,
    definitionOf: awsGraphDefinitions(),
    clock: systemClock,
    humanTasks: humanTaskExpiry({ store, clock: systemClock }),
  };
}
