/** The tool-execution ledger: one row per tool_use, written `pending` before any dispatch. */
import * as z from 'zod';
import { IsoTimeSchema, SCHEMA_VERSION } from './common.ts';

export const LEDGER_STATUSES = ['pending', 'completed', 'failed', 'refused'] as const;
export const LedgerStatusSchema = z.enum(LEDGER_STATUSES);
export type LedgerStatus = z.infer<typeof LedgerStatusSchema>;

export const ToolOutcomeSchema = z.object({
  content: z.string(),
  isError: z.boolean(),
  /** The call may have taken effect: sent (or dispatched) and never answered. See docs/security.md "The ledger". */
  outcomeUnknown: z.literal(true).optional(),
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
  turn: z.number().int().nonnegative(),
  tool: z.string(),
  argsHash: z.string(),
  idempotent: z.boolean(),
  idempotencyKey: z.string(),
  status: LedgerStatusSchema,
  attempts: z.number().int().nonnegative(),
  outcome: ToolOutcomeSchema.optional(),
  /** Set with status `failed` when the outcome is unknown (see above): the model was told it may have happened. */
  outcomeUnknown: z.literal(true).optional(),
  createdAt: IsoTimeSchema,
  settledAt: IsoTimeSchema.optional(),
});
export type LedgerRow = z.infer<typeof LedgerRowSchema>;
