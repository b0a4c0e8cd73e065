/**
 * Faults the store and the cancel log instead of throwing, because the change they follow is committed. A
 * composition root counts them: the AWS functions as metrics (shared/runtime/store-fault-metrics.ts), read by
 * alarms; by default they are only logged.
 */
export type StoreFaults = {
  /** A workflow change committed, but its owner's chain heads could not be signed (workflow-store.ts). */
  workflowSigningFault?(): void;
  /** A cancel committed, but the run's final head could not be anchored yet (shared/runs/cancel-run.ts). */
  cancelAnchorDeferred?(): void;
};
