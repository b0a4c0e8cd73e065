/**
 * The engine-neutral contract of external execution engines (docs/external-engines.md). An adapter hands
 * bounded work to an engine we do not run and reports back honestly: keyed idempotent admission, `unknown`
 * when the network fails (never a made-up failure), cancellation facts reported apart, artifacts verified
 * against the engine's manifest before anything reads them, and a recreated execution refused, not adopted.
 *
 * Pure types: no SDK, no environment, no clock reads. Adapters get their ports from the registry.
 */

/** A JSON value: what a payload and a summary may hold. */
export type JsonValue = null | boolean | number | string | JsonValue[] | { [key: string]: JsonValue };

/** Our key for one piece of work; the engine deduplicates on it. Derived from the run, stable across retries. */
export type ExecutionKey = string;

/** The engine's identity of one life of an execution; a recreated execution has another one. */
export type Incarnation = string;

/** An execution the engine admitted. */
export type ExternalExecution = {
  engine: string;
  key: ExecutionKey;
  incarnation: Incarnation;
  /** Lower-case hex SHA-256 of the canonical JSON of the payload the engine holds for this key. */
  payloadSha256: string;
};

/** What `start` answers: the execution, and whether it already existed for this key and payload. */
export type StartResult = { execution: ExternalExecution; deduplicated: boolean };

/** Why a live execution waits. A wait is never a failure. */
export const WAIT_REASONS = ['human', 'budget', 'capacity'] as const;
export type WaitReason = (typeof WAIT_REASONS)[number];

/** How a finished execution ended. */
export const TERMINAL_OUTCOMES = ['succeeded', 'failed', 'cancelled'] as const;
export type TerminalOutcome = (typeof TERMINAL_OUTCOMES)[number];

/**
 * Why we do not know the state: the engine could not be reached, answered with nothing we can read, or
 * refused to answer (`refused`: a 4xx other than 404 on a status read, an egress or credential refusal) —
 * a refusal to say is not a verdict about the work.
 */
export const UNKNOWN_CAUSES = ['transport', 'engine_error', 'malformed_response', 'refused'] as const;
export type UnknownCause = (typeof UNKNOWN_CAUSES)[number];

/** One observation of an execution, stamped with the adapter's clock. */
export type Observation = { observedAtMs: number } & (
  | { state: 'accepted' }
  | { state: 'running'; progress?: string }
  | { state: 'waiting'; reason: WaitReason; detail?: string }
  | { state: 'terminal'; outcome: TerminalOutcome; summary: string }
  | { state: 'unknown'; cause: UnknownCause; detail: string }
);
export type ObservationState = Observation['state'];

/**
 * The facts of a cancellation, each on its own: `requested` (we asked), `acknowledged` (the engine took
 * the request), `stopped` (the engine reports the execution is no longer running). `detail` says why a
 * fact is missing, e.g. the request could not be delivered.
 */
export type CancelFacts = { requested: boolean; acknowledged: boolean; stopped: boolean; detail?: string };

/** One entry of an engine's artifact manifest: a relative path, its size in bytes and its SHA-256 (hex). */
export type ArtifactEntry = { path: string; size: number; sha256: string };

/** An artifact whose path, size and digest matched the manifest. Only verified bytes are handed out. */
export type VerifiedArtifact = {
  entry: ArtifactEntry;
  bytes: Uint8Array;
  /** The same verified bytes as a stream, for consumers that stream. */
  stream(): ReadableStream<Uint8Array>;
};

/** A status change the engine pushed to us, once its signature was verified. */
export type CallbackEvent = { key: ExecutionKey; incarnation: Incarnation; observation: Observation };

/** A received callback request, as the HTTP edge hands it over (exact body text, lower-case header names). */
export type CallbackRequest = { body: string; headers: Readonly<Record<string, string>> };

/** An adapter to one external engine. Every method may be retried with the same arguments. */
export interface ExternalAdapter {
  /** The registry name of the engine, e.g. `http-runtime`. */
  readonly engine: string;
  /**
   * Admits `payload` under `key`. Same key and same payload: the existing execution (`deduplicated`).
   * Same key, other payload: `ExternalConflictError`. A refusal: `ExternalRefusedError`. A request that may
   * or may not have arrived: `ExternalTransportError` (retrying with the same key is safe).
   */
  start(key: ExecutionKey, payload: JsonValue): Promise<StartResult>;
  /**
   * The execution's state. A transport failure is `unknown`, never `failed`. Another incarnation throws
   * `IncarnationMismatchError`; a key the engine does not know throws `ExternalNotFoundError`.
   */
  observe(key: ExecutionKey, incarnation: Incarnation): Promise<Observation>;
  /**
   * The execution the engine holds under `key`, whatever its incarnation, without admitting one: `undefined`
   * when the engine does not know the key. Optional. Used only to cancel an execution whose `start` got no
   * usable answer (so no incarnation was ever learned): never to adopt it for observing. A request that may
   * not have arrived throws `ExternalTransportError`; a refusal `ExternalRefusedError`.
   */
  find?(key: ExecutionKey): Promise<ExternalExecution | undefined>;
  /** Asks the engine to stop; the facts are reported apart. Another incarnation throws, like `observe`. */
  cancel(key: ExecutionKey, incarnation: Incarnation): Promise<CancelFacts>;
  /** The engine's artifact manifest for this execution. */
  listArtifacts(key: ExecutionKey, incarnation: Incarnation): Promise<ArtifactEntry[]>;
  /**
   * One artifact, verified against the manifest (path listed, size and SHA-256 equal) before it is
   * returned. A mismatch throws `ArtifactRejectedError` carrying the evidence.
   */
  openArtifact(key: ExecutionKey, incarnation: Incarnation, path: string): Promise<VerifiedArtifact>;
  /**
   * Engines with push: verifies a callback's signature and parses it. Throws `CallbackRejectedError` on any
   * fault (fail closed); the executor then keeps polling with `observe`.
   */
  verifyCallback?(request: CallbackRequest): Promise<CallbackEvent>;
}
