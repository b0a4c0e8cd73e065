/**
 * Execution receipts: one per side effect a run asked for, read from the tool-execution ledger (agent turns
 * and graph service steps write the same rows). A receipt says what was called (action, args hash,
 * idempotency key), how it ended, a digest of the stored outcome (already redacted of credential values
 * before it was stored: shared/core/redaction.ts), and what a repeat of the same call does under the ledger
 * rules (docs/security.md, "The ledger").
 */

import { canonicalJson, sha256Hex } from '../audit/index.ts';
import type { LedgerRow } from '../schemas/ledger.ts';
import * as z from '../zod.ts';

export const RECEIPT_STATUSES = ['pending', 'completed', 'failed', 'outcome_unknown', 'refused'] as const;

/**
 * What a duplicate of the call does:
 * - `reuses_outcome`: it is settled; the recorded outcome is returned and nothing is sent again;
 * - `resent_with_same_key`: it is pending and idempotent; it is sent again with the same Idempotency-Key;
 * - `refused_outcome_unknown`: it may have taken effect and is not idempotent; it is never sent again.
 */
export const DUPLICATE_BEHAVIOURS = [
  'reuses_outcome',
  'resent_with_same_key',
  'refused_outcome_unknown',
] as const;

export const ReceiptSchema = z.object({
  toolUseId: z.string(),
  turn: z.number().check(z.int()),
  action: z.string(),
  argsHash: z.string().check(z.describe('SHA-256 of canonicalJSON({ tool, args }).')),
  idempotent: z.boolean(),
  idempotencyKey: z.string().check(z.describe('Sent as the Idempotency-Key header by HTTP actions.')),
  status: z.enum(RECEIPT_STATUSES),
  attempts: z.number().check(z.int()),
  createdAt: z.string(),
  settledAt: z.optional(z.string()),
  outcomeDigest: z
    .optional(z.string())
    .check(z.describe('SHA-256 of canonicalJSON(outcome) as stored (redacted); absent while pending.')),
  onDuplicate: z.enum(DUPLICATE_BEHAVIOURS),
});
export type Receipt = z.infer<typeof ReceiptSchema>;

function statusOf(row: LedgerRow): Receipt['status'] {
  if (row.status === 'failed' && (row.outcomeUnknown || row.outcome?.outcomeUnknown))
    return 'outcome_unknown';
  return row.status;
}

function onDuplicate(row: LedgerRow, status: Receipt['status']): Receipt['onDuplicate'] {
  if (status === 'outcome_unknown') return 'refused_outcome_unknown';
  if (status !== 'pending') return 'reuses_outcome';
  // A pending row is a call that may have been dispatched: only an idempotent action is safe to send again.
  return row.idempotent ? 'resent_with_same_key' : 'refused_outcome_unknown';
}

/** The receipt of one ledger row. */
export function receiptOf(row: LedgerRow): Receipt {
  const status = statusOf(row);
  return {
    toolUseId: row.toolUseId,
    turn: row.turn,
    action: row.tool,
    argsHash: row.argsHash,
    idempotent: row.idempotent,
    idempotencyKey: row.idempotencyKey,
    status,
    attempts: row.attempts,
    createdAt: row.createdAt,
    ...(row.settledAt !== undefined ? { settledAt: row.settledAt } : {}),
    ...(row.outcome !== undefined ? { outcomeDigest: sha256Hex(canonicalJson(row.outcome)) } : {}),
    onDuplicate: onDuplicate(row, status),
  };
}
