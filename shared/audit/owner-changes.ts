import * as z from '../zod.ts';
import { canonicalJson, sha256Hex } from './canonical.ts';
import { HexHashSchema } from './entry.ts';
import { AuditEntryError } from './errors.ts';

/** Domain separator of workflow-change hashes (distinct from run entries and owner anchors). */
export const OWNER_CHANGE_DOMAIN = 'wf-audit-owner-change/v1\n';
/** Domain separator of a workflow-change chain's genesis hash. */
export const OWNER_CHANGE_GENESIS_DOMAIN = 'wf-audit-owner-change/v1/genesis\n';
/** Domain separator of a workflow definition's hash, as a change records it. */
export const DEFINITION_HASH_DOMAIN = 'wf-definition/v1\n';

/** Every kind of change to an owner's workflows and delegation grants (`workflowId` holds the grant id). */
export const OWNER_CHANGE_TYPES = {
  workflow_created: 'A workflow was created with its version 1 (name, definition hash).',
  workflow_version_added: 'A new version of a workflow was saved (version, definition hash).',
  workflow_draft_saved:
    'A draft version was saved: not run, not used by triggers (version, definition hash).',
  workflow_draft_updated: 'An open draft was replaced in place (version, definition hash).',
  workflow_version_published: 'A draft was published: runs now start on it (version, definition hash).',
  workflow_enabled: 'A workflow was enabled: its triggers fire and runs may start.',
  workflow_disabled: 'A workflow was disabled: no new runs, runs in flight stop at their next turn.',
  workflow_deleted: 'A workflow was deleted and its name released.',
  grant_created: 'A client was granted delegated jobs (client id, grant hash).',
  grant_narrowed: "A client's grant was narrowed: running jobs are checked against it at every tool call.",
  grant_widened: "A client's grant was widened (new jobs may use more; running jobs keep their snapshot).",
  grant_revoked: "A client's grant was revoked: no job starts, running jobs stop at their next turn.",
} as const;

/** The name of a workflow-change kind. */
export type OwnerChangeType = keyof typeof OWNER_CHANGE_TYPES;

const changeTypes = Object.keys(OWNER_CHANGE_TYPES) as [OwnerChangeType, ...OwnerChangeType[]];

/**
 * One link of an owner's workflow-change chain. `author` is the authenticated principal that made the
 * change (IAM principal ARN, JWT subject, or the local API key's principal), never a value from a body.
 */
export const OwnerChangeSchema = z.strictObject({
  schemaVersion: z.literal(1),
  owner: z.string().check(z.minLength(1)),
  seq: z.number().check(z.int(), z.nonnegative()),
  at: z.iso.datetime({ offset: true }),
  type: z.enum(changeTypes),
  author: z.string().check(z.minLength(1), z.maxLength(512)),
  workflowId: z.string().check(z.minLength(1)),
  /** The version the change made or acted on (the new version, or the latest one). */
  version: z.number().check(z.int(), z.positive()),
  data: z.record(z.string(), z.unknown()),
  prevHash: HexHashSchema,
  hash: HexHashSchema,
});

/** A sealed workflow change. */
export type OwnerChange = z.infer<typeof OwnerChangeSchema>;
/** What a caller supplies; the chain fields are derived. */
export type OwnerChangeInput = Omit<OwnerChange, 'schemaVersion' | 'seq' | 'prevHash' | 'hash'>;

/** The `prevHash` of a workflow-change chain's seq 0, bound to the owner. */
export function ownerChangeGenesisHash(owner: string): string {
  return sha256Hex(OWNER_CHANGE_GENESIS_DOMAIN, canonicalJson({ owner }));
}

/** The hash a change records for a definition: SHA-256(`wf-definition/v1\n` ‖ canonicalJSON(definition)). */
export function definitionHash(definition: unknown): string {
  return sha256Hex(DEFINITION_HASH_DOMAIN, canonicalJson(definition));
}

function changeHash(body: Omit<OwnerChange, 'hash'>): string {
  return sha256Hex(OWNER_CHANGE_DOMAIN, body.prevHash, canonicalJson(body));
}

/** Seals a change after `head` (the owner's last change, or `undefined` for the first). */
export function sealOwnerChange(head: OwnerChange | undefined, input: OwnerChangeInput): OwnerChange {
  if (head !== undefined && head.owner !== input.owner) {
    throw new AuditEntryError('cannot append to another owner chain', {
      head: head.owner,
      owner: input.owner,
    });
  }
  const parsed = z.omit(OwnerChangeSchema, { hash: true }).safeParse({
    ...input,
    schemaVersion: 1,
    seq: head === undefined ? 0 : head.seq + 1,
    prevHash: head === undefined ? ownerChangeGenesisHash(input.owner) : head.hash,
  });
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    throw new AuditEntryError(
      `workflow change does not match the schema: ${issue?.path.join('.')}: ${issue?.message}`,
      { issues: parsed.error.issues },
    );
  }
  try {
    return { ...parsed.data, hash: changeHash(parsed.data) };
  } catch (cause) {
    throw new AuditEntryError('workflow change data is not canonical-JSON serializable', {}, { cause });
  }
}

/** Why a workflow-change chain failed verification. */
export type OwnerChangeFailureReason =
  | 'schema'
  | 'wrong_owner'
  | 'seq_gap'
  | 'hash_mismatch'
  | 'prev_hash_mismatch';

/** The outcome of verifying a change chain; on failure, changes with `seq < firstBrokenSeq` verified. */
export type OwnerChangeVerification =
  | { ok: true; count: number; head: string }
  | { ok: false; firstBrokenSeq: number; index: number; reason: OwnerChangeFailureReason; message: string };

/**
 * Verifies an owner's changes given in stored order (by seq) and names the first broken one. With `start`,
 * verifies a range from a checkpoint (a page of the chain: the seq of its first change and the hash before it).
 */
export function verifyOwnerChanges(
  changes: readonly unknown[],
  options: { owner: string; start?: { seq: number; prevHash: string } },
): OwnerChangeVerification {
  const startSeq = options.start?.seq ?? 0;
  let prevHash = options.start?.prevHash ?? ownerChangeGenesisHash(options.owner);
  for (const [index, raw] of changes.entries()) {
    const seq = startSeq + index;
    const fail = (reason: OwnerChangeFailureReason, message: string): OwnerChangeVerification => ({
      ok: false,
      firstBrokenSeq: seq,
      index,
      reason,
      message: `change ${seq}: ${message}`,
    });
    const parsed = OwnerChangeSchema.safeParse(raw);
    if (!parsed.success) {
      const issue = parsed.error.issues[0];
      return fail(
        'schema',
        `does not match the schema: ${issue?.path.join('.') || '(root)'}: ${issue?.message}`,
      );
    }
    const { hash, ...body } = parsed.data;
    if (body.owner !== options.owner) return fail('wrong_owner', `belongs to owner ${body.owner}`);
    if (body.seq !== seq) return fail('seq_gap', `change has seq ${body.seq}, expected ${seq}`);
    let computed: string;
    try {
      computed = changeHash(body);
    } catch {
      return fail('schema', 'data is not canonical-JSON serializable');
    }
    if (computed !== hash) return fail('hash_mismatch', 'content does not match its hash');
    if (body.prevHash !== prevHash)
      return fail('prev_hash_mismatch', 'prevHash does not link to the previous change');
    prevHash = hash;
  }
  return { ok: true, count: changes.length, head: prevHash };
}
