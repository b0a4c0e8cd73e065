/**
 * The trigger sync port: after every change to a workflow's head or latest version (create, new version,
 * enable, disable, delete) the API reads the head again and tells it the workflow's current state, and it
 * makes the world match — EventBridge Scheduler schedules and EventBridge rules on AWS, the trigger index
 * locally (shared/api/workflow-access.ts, `syncTriggers`).
 */
import type { Trigger } from '../schemas/trigger.ts';
import type { TriggerIndexEntry } from '../store/trigger-index.ts';

/** The state a workflow's triggers must now reflect. Idempotent: sending the same request twice is harmless. */
export type TriggerSyncRequest = {
  owner: string;
  workflowId: string;
  name: string;
  enabled: boolean;
  deleted: boolean;
  /** The trigger of the latest version. */
  trigger: Trigger;
  /**
   * The head revision this state was read at (0: a head stored without `rev`). The trigger index is written
   * only while the head still has it (`TriggerSyncSupersededError` otherwise). Absent: written unfenced
   * (tests, seeds); the API always sends it.
   */
  rev?: number;
};

/** Makes a workflow's schedule / rule / index entry match its current state. */
export interface TriggerSync {
  sync(request: TriggerSyncRequest): Promise<void>;
}

/** The index entry a request calls for, or undefined when the workflow must not be indexed. */
export function indexEntryFor(request: TriggerSyncRequest): TriggerIndexEntry | undefined {
  const { trigger } = request;
  if (request.deleted || !request.enabled || trigger.type === 'on_demand') return undefined;
  return { owner: request.owner, workflowId: request.workflowId, name: request.name, trigger };
}

/**
 * Runs several syncs in order (e.g. the AWS adapter and the index); the first failure stops the rest. Put the
 * index last: its write is fenced on the head's revision, so a sync that reached it unfenced by a newer head
 * wrote the AWS side from a head that was still current after those calls (`syncTriggers` retries otherwise).
 */
export function combineTriggerSyncs(...syncs: TriggerSync[]): TriggerSync {
  return {
    async sync(request) {
      for (const sync of syncs) await sync.sync(request);
    },
  };
}
