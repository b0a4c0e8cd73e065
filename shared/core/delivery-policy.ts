/**
 * The live policy of a delivery that reaches outside the store (an alert, an HTTP destination), read just
 * before it is sent: the workflow head enabled and not deleted (core/live-policy.ts), and the definition of its
 * latest version, whose gate for an HTTP destination's connector caps the run's own (the stricter wins, as at
 * a turn). A `stored` or `report` destination sends nothing and reads nothing. Deliver writes nothing before
 * it sends, so this is a read (one GetItem; a second when a later version was published), not a condition.
 */
import type { Destination } from '../schemas/destination.ts';
import type { Run } from '../schemas/run.ts';
import type { WorkflowDefinition } from '../schemas/workflow.ts';
import { isAgentVersion, type WorkflowVersion } from '../schemas/workflow-record.ts';
import { liveVersionOf } from './live-policy.ts';
import type { RunStore } from './store-port.ts';

/**
 * Disabled (nothing is sent), or enabled with the latest version's agent definition (undefined: withdrawn) and
 * the latest version's destination, of whatever kind (undefined: the version cannot be read).
 */
export type DeliveryPolicy =
  | { enabled: false; reason: string }
  | { enabled: true; live: WorkflowDefinition | undefined; liveDestination: Destination | undefined };

export async function deliveryPolicy(
  store: Pick<RunStore, 'getWorkflowHead' | 'getWorkflowVersion'>,
  run: Run,
  version: WorkflowVersion,
): Promise<DeliveryPolicy> {
  const latestVersion = liveVersionOf(await store.getWorkflowHead(run.owner, run.workflowId));
  if (latestVersion === undefined)
    return {
      enabled: false,
      reason: `workflow ${run.workflowName} was disabled or deleted before its result was delivered; nothing was sent`,
    };
  const latest =
    latestVersion === run.workflowVersion
      ? version
      : await store.getWorkflowVersion(run.owner, run.workflowId, latestVersion);
  return {
    enabled: true,
    live: latest && isAgentVersion(latest) ? latest.definition : undefined,
    liveDestination: latest?.definition.destination,
  };
}
