/**
 * What an external run (`kind: external`, issue #14) records on its run item: the mode it ran in, the exact
 * key and payload it decided, the execution the engine admitted, the observe loop's state, the terminal
 * outcome, the verified (or rejected) result artifact and the cancellation facts. Field reference:
 * docs/external-engines.md, "Running external work and modes".
 */
import * as z from '../zod.ts';
import { IsoTimeSchema } from './common.ts';

const ArtifactEntrySchema = z.object({
  path: z.string(),
  size: z.number().check(z.int()),
  sha256: z.string(),
});

export const ExternalRunSchema = z.object({
  engine: z.string(),
  /** The mode the run may still use: stamped at creation, lowered if a later version's is stricter. */
  mode: z.enum(['off', 'shadow', 'report_only', 'live']),
  /**
   * The workflow's latest version when the run last read its live policy (set only once a later version was
   * published): later steps assume it is still the latest (shared/external/run/live-policy.ts).
   */
  liveVersion: z.optional(z.number().check(z.int(), z.positive())),
  /** The idempotent admission key: derived from the run id only, so every retry of Start sends the same. */
  key: z.string(),
  /** The exact payload decided for the engine (sent, or in `shadow` only recorded). */
  payload: z.optional(z.unknown()),
  payloadSha256: z.optional(z.string()),
  /** The life of the execution the engine admitted; any other is refused, never adopted. */
  incarnation: z.optional(z.string()),
  /** Set when Start admitted the execution (the `external-start` ledger row settled). */
  startedAt: z.optional(IsoTimeSchema),
  /** Observe calls made so far (bounds the execution's history: docs/state-machine.md). */
  observes: z._default(z.number().check(z.int(), z.nonnegative()), 0),
  /** The next wait between observes, seconds (exponential backoff up to `observe.maxIntervalSeconds`). */
  intervalSeconds: z.optional(z.number().check(z.int(), z.positive())),
  /**
   * The engine answered Start "at capacity" (429/503): the run waits and Start tries again with the same key
   * until the run's deadline (shared/external/run/start.ts). Kept after admission (its attempts count against
   * the execution's history: backoff.ts); `nextAttemptAt` only while waiting.
   */
  capacity: z.optional(
    z.object({
      since: IsoTimeSchema,
      /** Start attempts refused so far. */
      attempts: z.number().check(z.int(), z.positive()),
      /** The engine's last answer, e.g. `HTTP 429, retry later (Retry-After 30 s)`. */
      detail: z.string().check(z.maxLength(500)),
      /** The HTTP status of the last refusal (429 or 503). */
      status: z.optional(z.number().check(z.int())),
      /** The `Retry-After` the engine last asked for, seconds (honoured up to the cap). */
      retryAfterSeconds: z.optional(z.number().check(z.int(), z.nonnegative())),
      /** When Start tries again; absent once admitted or ended. */
      nextAttemptAt: z.optional(IsoTimeSchema),
    }),
  ),
  /** Since when every observe answered `unknown` (reset by any known answer). */
  unknownSince: z.optional(IsoTimeSchema),
  /** The last observation, as the engine (or the transport) gave it. */
  last: z.optional(
    z.object({
      state: z.string(),
      at: IsoTimeSchema,
      detail: z.optional(z.string().check(z.maxLength(500))),
    }),
  ),
  /** The engine's terminal answer. */
  outcome: z.optional(
    z.object({
      outcome: z.enum(['succeeded', 'failed', 'cancelled']),
      summary: z.string().check(z.maxLength(2000)),
    }),
  ),
  /** The result artifact, verified against the engine's manifest. */
  artifact: z.optional(ArtifactEntrySchema),
  /** A result artifact that disagreed with the manifest: rejected, with the evidence. */
  rejectedArtifact: z.optional(
    z.object({
      reason: z.string(),
      expected: z.optional(ArtifactEntrySchema),
      received: z.optional(
        z.object({ path: z.string(), size: z.nullable(z.number()), sha256: z.nullable(z.string()) }),
      ),
    }),
  ),
  /** An owner asked to cancel: the observe loop calls the engine's cancel at its next step. */
  cancelRequested: z.optional(z.object({ at: IsoTimeSchema, by: z.string() })),
  /** The engine's answer to cancel: three separate facts. */
  cancel: z.optional(
    z.object({
      requested: z.boolean(),
      acknowledged: z.boolean(),
      stopped: z.boolean(),
      detail: z.optional(z.string().check(z.maxLength(500))),
      /**
       * Start got no usable answer, so no incarnation was learned: what looking the key up found
       * (shared/external/run/cancel.ts). `found`: the engine holds our key and payload (`incarnation`), asked
       * to cancel it; `not_found`: the engine does not know the key, nothing admitted; `other_payload`: the
       * key holds another payload, not ours to cancel; `unanswered` / `unsupported`: the engine could not be
       * asked (no answer, or its adapter cannot look keys up): the execution may run, not cancellable.
       */
      byKey: z.optional(z.enum(['found', 'not_found', 'other_payload', 'unanswered', 'unsupported'])),
      incarnation: z.optional(z.string()),
      at: IsoTimeSchema,
    }),
  ),
});
export type ExternalRun = z.infer<typeof ExternalRunSchema>;
