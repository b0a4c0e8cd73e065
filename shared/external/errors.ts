/**
 * Errors of external engines. Every adapter throws these (never an engine's own), so executors and the
 * state machine's Retry/Catch classify outcomes by name. Messages name keys and fields, never credentials.
 */
import type { ArtifactEntry, ExecutionKey, Incarnation, UnknownCause } from './contract.ts';

/** Base class: which engine, and (when there is one) which execution key. */
export class ExternalError extends Error {
  readonly engine: string;
  readonly key: ExecutionKey | undefined;
  constructor(engine: string, key: ExecutionKey | undefined, message: string, cause?: unknown) {
    super(`${engine}: ${message}`, cause === undefined ? undefined : { cause });
    this.name = 'ExternalError';
    this.engine = engine;
    this.key = key;
  }
}

/** The key is already admitted with another payload. Never retried: the key or the payload is wrong. */
export class ExternalConflictError extends ExternalError {
  /** SHA-256 of the payload we sent, and of the one the engine holds (when it said). */
  readonly sentSha256: string;
  readonly heldSha256: string | undefined;
  constructor(engine: string, key: ExecutionKey, sentSha256: string, heldSha256?: string, cause?: unknown) {
    super(engine, key, `key ${key} is already admitted with a different payload`, cause);
    this.name = 'ExternalConflictError';
    this.sentSha256 = sentSha256;
    this.heldSha256 = heldSha256;
  }
}

/**
 * The engine answered and refused (auth, validation, quota), or the call was refused on our side. `retryable`
 * when it asked us to come back; `retryAfterSeconds` when it said when (an HTTP `Retry-After` header). `sent`
 * is false only when the request provably never left (a credential that could not be read, the egress guard, a
 * key the adapter refuses): a cancel refused so was never asked of the engine.
 */
export class ExternalRefusedError extends ExternalError {
  readonly status: number | undefined;
  readonly retryable: boolean;
  readonly retryAfterSeconds: number | undefined;
  readonly sent: boolean;
  constructor(
    engine: string,
    key: ExecutionKey | undefined,
    detail: string,
    options: {
      status?: number;
      retryable?: boolean;
      retryAfterSeconds?: number;
      sent?: boolean;
      cause?: unknown;
    } = {},
  ) {
    super(engine, key, `refused: ${detail}`, options.cause);
    this.name = 'ExternalRefusedError';
    this.status = options.status;
    this.retryable = options.retryable ?? false;
    this.retryAfterSeconds = options.retryAfterSeconds;
    this.sent = options.sent ?? true;
  }
}

/**
 * Whether a refusal is the engine at capacity: it answered 429 or 503 ("retry later"). Normal back-pressure,
 * not a failure: a run's Start waits and tries again until the run's deadline (shared/external/run/start.ts).
 */
export const isAtCapacity = (error: unknown): error is ExternalRefusedError =>
  error instanceof ExternalRefusedError && error.retryable && (error.status === 429 || error.status === 503);

/** The engine does not know this key (a foreign key answers the same). */
export class ExternalNotFoundError extends ExternalError {
  constructor(engine: string, key: ExecutionKey, cause?: unknown) {
    super(engine, key, `no execution with key ${key}`, cause);
    this.name = 'ExternalNotFoundError';
  }
}

/** The engine holds another life of this key than the one we started: refused, never adopted. */
export class IncarnationMismatchError extends ExternalError {
  readonly expected: Incarnation;
  readonly actual: Incarnation;
  constructor(engine: string, key: ExecutionKey, expected: Incarnation, actual: Incarnation) {
    super(engine, key, `key ${key} is incarnation ${actual}, not the ${expected} we started; not adopted`);
    this.name = 'IncarnationMismatchError';
    this.expected = expected;
    this.actual = actual;
  }
}

/**
 * No usable answer came back: the network failed (`transport`), the engine answered with a server error
 * (`engine_error`) or with something unreadable (`malformed_response`). `sent: true` when the request may
 * have been received (a retry of `start` with the same key is then deduplicated by the engine).
 */
export class ExternalTransportError extends ExternalError {
  readonly kind: UnknownCause;
  readonly sent: boolean;
  readonly retryable = true;
  constructor(
    engine: string,
    key: ExecutionKey | undefined,
    kind: UnknownCause,
    detail: string,
    sent: boolean,
    cause?: unknown,
  ) {
    super(engine, key, `${kind}: ${detail}`, cause);
    this.name = 'ExternalTransportError';
    this.kind = kind;
    this.sent = sent;
  }
}

/** Why an artifact was rejected. */
export type ArtifactRejection = 'not_in_manifest' | 'path_mismatch' | 'size_mismatch' | 'digest_mismatch';

/**
 * What was received, kept as evidence next to the manifest entry it was checked against: the path the
 * engine served, the byte count and the SHA-256 of the bytes received. Both are null when nothing was
 * fetched (a path not in the manifest); `sha256` is null and `size` a lower bound (the cap plus one) when
 * the body exceeded the cap.
 */
export type ArtifactEvidence = {
  reason: ArtifactRejection;
  expected: ArtifactEntry | undefined;
  received: { path: string; size: number | null; sha256: string | null };
};

/** An artifact did not match the manifest; nothing parsed it. `evidence` says what came and what was due. */
export class ArtifactRejectedError extends ExternalError {
  readonly evidence: ArtifactEvidence;
  constructor(engine: string, key: ExecutionKey, evidence: ArtifactEvidence) {
    super(engine, key, `artifact ${JSON.stringify(evidence.received.path)} rejected: ${evidence.reason}`);
    this.name = 'ArtifactRejectedError';
    this.evidence = evidence;
  }
}

/** A pushed callback failed its signature or shape check (fail closed: keep polling). */
export class CallbackRejectedError extends ExternalError {
  readonly reason: 'signature' | 'malformed' | 'not_configured';
  constructor(engine: string, reason: CallbackRejectedError['reason'], cause?: unknown) {
    super(engine, undefined, `callback rejected: ${reason}`, cause);
    this.name = 'CallbackRejectedError';
    this.reason = reason;
  }
}

/**
 * An engine cannot be used: not registered (`unknown`), not enabled in this deployment (`disabled`), or
 * its settings are invalid (`invalid_settings`). `field` names what to fix: the workflow field on save,
 * the configuration path for settings.
 */
export class ExternalEngineUnavailableError extends Error {
  readonly engine: string;
  readonly field: string;
  readonly reason: 'unknown' | 'disabled' | 'invalid_settings';
  constructor(
    engine: string,
    field: string,
    reason: ExternalEngineUnavailableError['reason'],
    detail: string,
  ) {
    super(`${field}: ${detail}`);
    this.name = 'ExternalEngineUnavailableError';
    this.engine = engine;
    this.field = field;
    this.reason = reason;
  }
}
