import { canonicalJson, sha256Hex } from './canonical.ts';
import {
  type AuditEntry,
  HexHashSchema,
  type UnsealedAuditEntry,
  UnsealedAuditEntrySchema,
} from './entry.ts';
import { AuditEntryError } from './errors.ts';

/** Domain separator of run-chain entry hashes, so no other hash of the product can collide with one. */
export const AUDIT_ENTRY_DOMAIN = 'wf-audit/v1\n';
/** Domain separator of a run chain's genesis hash. */
export const AUDIT_GENESIS_DOMAIN = 'wf-audit/v1/genesis\n';

/**
 * The `prevHash` of seq 0 of a run: bound to owner and run, so a chain cannot be replayed as another run's.
 * SHA-256(`wf-audit/v1/genesis\n` ‖ canonicalJSON({ owner, runId })).
 */
export function auditGenesisHash(run: { owner: string; runId: string }): string {
  return sha256Hex(AUDIT_GENESIS_DOMAIN, canonicalJson({ owner: run.owner, runId: run.runId }));
}

/**
 * The hash of an entry: SHA-256(`wf-audit/v1\n` ‖ prevHash ‖ canonicalJSON(entry without `hash`)).
 * The hashed body carries owner, runId and seq, so a spliced or renumbered entry no longer matches.
 */
export function computeAuditEntryHash(entry: Omit<AuditEntry, 'hash'>): string {
  const { prevHash } = entry;
  return sha256Hex(AUDIT_ENTRY_DOMAIN, prevHash, canonicalJson(entry));
}

/** Seals an entry onto a chain whose head hash is `prevHash` (use `auditGenesisHash` for seq 0). */
export function sealAuditEntry(unsealed: UnsealedAuditEntry, prevHash: string): AuditEntry {
  const parsed = UnsealedAuditEntrySchema.safeParse(unsealed);
  if (!parsed.success) {
    throw new AuditEntryError(`audit entry does not match the schema: ${parsed.error.issues[0]?.message}`, {
      issues: parsed.error.issues,
    });
  }
  if (!HexHashSchema.safeParse(prevHash).success) {
    throw new AuditEntryError('prevHash must be a lower-case hex SHA-256 digest', { prevHash });
  }
  const body = { ...parsed.data, prevHash };
  try {
    return { ...body, hash: computeAuditEntryHash(body) };
  } catch (cause) {
    throw new AuditEntryError(
      'audit entry data is not canonical-JSON serializable',
      { type: body.type },
      { cause },
    );
  }
}

/** What a caller supplies to append: the chain fields (`schemaVersion`, `seq`, links) are derived. */
export type AuditEntryInput = Omit<UnsealedAuditEntry, 'schemaVersion' | 'seq'>;

/**
 * Seals the next entry after `head` (the run's last entry, or `undefined` for a new run's first entry).
 * The store must still append with a conditional write on `seq` so two writers cannot fork the chain.
 */
export function appendAuditEntry(head: AuditEntry | undefined, input: AuditEntryInput): AuditEntry {
  if (head === undefined) {
    return sealAuditEntry({ ...input, schemaVersion: 1, seq: 0 }, auditGenesisHash(input));
  }
  if (head.owner !== input.owner || head.runId !== input.runId) {
    throw new AuditEntryError('cannot append to the chain of another run', {
      head: { owner: head.owner, runId: head.runId },
      entry: { owner: input.owner, runId: input.runId },
    });
  }
  return sealAuditEntry({ ...input, schemaVersion: 1, seq: head.seq + 1 }, head.hash);
}
