/**
 * Errors of delegated jobs. Each names the field or limit at fault, so the REST routes and the MCP tools
 * can both say precisely why a request was refused; `kind` maps to an HTTP status at the API's edge.
 */

/** Why a job request was refused. */
export type JobRejectionKind =
  /** The identity is not a client with a live grant (no grant, or revoked): 403. */
  | 'not_granted'
  /** The grant lacks the scope this operation needs: 403. */
  | 'scope_missing'
  /** A field of the request is outside the grant (a tool, the model, a limit): 403. */
  | 'outside_grant'
  /** The model has no price, so its budget cannot be enforced: 400. */
  | 'unpriced_model'
  /** The concurrency quota and the queue are both full: 429. */
  | 'queue_full'
  /** Idempotency-Key reused with another request: 409. */
  | 'idempotency_conflict'
  /** The request is well formed but cannot be kept (the job record would not fit DynamoDB's item): 400. */
  | 'validation_failed'
  /**
   * The job is between two states (its run is being created, or it moved under each look): nothing was done;
   * the same request may succeed a moment later. 409 with Retry-After. Never a grant refusal.
   */
  | 'job_busy';

/** A refused job request, naming the field (`prompt`, `tools[1]`, `model`, `maxTurns`, `scope`, `queue`). */
export class JobRejectedError extends Error {
  readonly kind: JobRejectionKind;
  readonly field: string;
  constructor(kind: JobRejectionKind, field: string, message: string) {
    super(message);
    this.name = 'JobRejectedError';
    this.kind = kind;
    this.field = field;
  }
}

/** A job that is not the caller's: missing and foreign answer the same. */
export class JobNotFoundError extends Error {
  constructor() {
    super('job not found');
    this.name = 'JobNotFoundError';
  }
}

/** A grant change refused: the client is granted by someone else, it is not a narrowing, a stale version… */
export class GrantChangeError extends Error {
  readonly kind: 'not_found' | 'conflict' | 'invalid';
  readonly field: string | undefined;
  constructor(kind: 'not_found' | 'conflict' | 'invalid', message: string, field?: string) {
    super(message);
    this.name = 'GrantChangeError';
    this.kind = kind;
    this.field = field;
  }
}
