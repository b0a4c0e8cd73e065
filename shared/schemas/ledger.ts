/** The tool-execution ledger: one row per tool_use, written `pending` before any dispatch. */
import * as z from '../zod.ts';
import { IsoTimeSchema, SCHEMA_VERSION } from './common.ts';

export const LEDGER_STATUSES = ['pending', 'completed', 'failed', 'refused'] as const;
export const LedgerStatusSchema = z.enum(LEDGER_STATUSES);
export type LedgerStatus = z.infer<typeof LedgerStatusSchema>;

export const ToolOutcomeSchema = z.object({
  content: z.string(),
  isError: z.boolean(),
  /** The call may have taken effect: sent (or dispatched) and never answered. See docs/security.md "The ledger". */
  outcomeUnknown: z.optional(z.literal(true)),
});

/**
 * `pending` → `completed` | `failed`, exactly once. `refused` rows are written settled: the call was never
 * dispatched (gate denial, approval denied or expired, per-turn limit). A `failed` row with
 * `outcomeUnknown: true` is not a failure: the call was dispatched and may have taken effect (sent, then a
 * timeout, reset or oversized answer; a crash after dispatch; or the run ended while it was in flight).
 */
export const LedgerRowSchema = z.object({
  schemaVersion: z.literal(SCHEMA_VERSION),
  runId: z.string(),
  toolUseId: z.string(),
  turn: z.number().check(z.int(), z.nonnegative()),
  tool: z.string(),
  argsHash: z.string(),
  idempotent: z.boolean(),
  idempotencyKey: z.string(),
  status: LedgerStatusSchema,
  attempts: z.number().check(z.int(), z.nonnegative()),
  outcome: z.optional(ToolOutcomeSchema),
  /** Set with status `failed` when the outcome is unknown (see above): the model was told it may have happened. */
  outcomeUnknown: z.optional(z.literal(true)),
  createdAt: IsoTimeSchema,
  settledAt: z.optional(IsoTimeSchema),
});
export type LedgerRow = z.infer<typeof LedgerRowSchema>;
