/**
 * The composition of graph-advance: Advance and CompleteStep need the store and the definitions; a human
 * task's timed-out wait also expires its task record (the same table: no keyring, no topic).
 */
import type { CompleteStepDeps } from '../../graph-run/complete-step.ts';
import { agentChildCanceller } from '../../graph-run/end-children.ts';
import { humanTaskExpiry } from '../../human-tasks/expiry.ts';
import { systemClock } from '../clock.ts';
import { awsExecutionStops } from './executions.ts';
import { awsGraphDefinitions } from './graph-definitions.ts';
import { awsStore } from './store.ts';

export async function graphAdvanceDeps(): Promise<CompleteStepDeps> {
  const store = awsStore();
  return {
    store,
    definitionOf: awsGraphDefinitions(),
    clock: systemClock,
    humanTasks: humanTaskExpiry({ store, clock: systemClock }),
    // An agent step whose wait ended in an error: its child run is cancelled and its execution stopped.
    cancelAgentChild: agentChildCanceller({ store, clock: systemClock, executions: awsExecutionStops() }),
  };
}
