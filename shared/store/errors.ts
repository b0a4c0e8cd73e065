/**
 * The store's errors are part of the core's store port contract; they are defined there. An idempotency key
 * reused for another request is the store's own (runs.ts), here so that mapping it (shared/api/errors.ts)
 * bundles no run records.
 */
export * from '../core/store-errors.ts';

/** The same idempotency key was used for a different request. */
export class IdempotencyConflictError extends Error {
  readonly runId: string;
  constructor(key: string, runId: string) {
    super(`idempotency key '${key}' was already used for a different request (run ${runId})`);
    this.name = 'IdempotencyConflictError';
    this.runId = runId;
  }
}
