/**
 * Page tokens of the audit answers (GET /v1/runs/{id}/audit, GET /v1/audit). A token is a key of the caller's
 * own partition, checked like every listing's (pagination.ts): a run's audit token names that run, an owner's
 * audit token names that owner, so another run's or owner's token is a 400 like a forged one. The sort key
 * carries the checkpoint a page is verified from: where it starts and the hash of the entry before it.
 */
import { decodeToken, encodeToken } from '../store/index.ts';
import { invalid } from './errors.ts';
import { checkedToken, tokenShapes } from './pagination.ts';

const pad = (value: number) => String(value).padStart(9, '0');
const badToken = () => invalid([{ path: 'nextToken', message: 'is not a token this listing issued' }]);
/** The hash a next page links from when the last entry shown has none: it links to nothing, and fails. */
const NO_HASH = '0'.repeat(64);
const HASH = /^[0-9a-f]{64}$/;

/** The stored `hash` of an entry, as the next page's checkpoint (a broken entry's page failed already). */
export const checkpointHash = (entry: unknown): string => {
  const hash = (entry as { hash?: unknown } | undefined)?.hash;
  return typeof hash === 'string' && HASH.test(hash) ? hash : NO_HASH;
};

/**
 * Where a run's audit page starts: the item key seq holding its first entry, that entry's seq, the hash before;
 * and, once a page bound a model call, the assistant message it bound (run-audit-transcript.ts): where the next
 * page's reading of the transcript starts.
 */
export type RunAuditCursor = {
  item: number;
  seq: number;
  prevHash: string;
  transcript?: { seq: number; turn: number };
};

const RUN_SK = /^AUD#(\d{9})#(\d{9})#([0-9a-f]{64})(?:#MSG#(\d{9})#(\d{9}))?$/;

export function runAuditCursor(runId: string, token: string | undefined): RunAuditCursor | undefined {
  const checked = checkedToken(token, tokenShapes.runAudit(runId));
  if (checked === undefined) return undefined;
  const match = RUN_SK.exec(String(decodeToken(checked)?.sk));
  if (!match) throw badToken();
  const cursor = { item: Number(match[1]), seq: Number(match[2]), prevHash: match[3]! };
  return match[4] === undefined
    ? cursor
    : { ...cursor, transcript: { seq: Number(match[4]), turn: Number(match[5]) } };
}

export const runAuditToken = (runId: string, next: RunAuditCursor): string =>
  encodeToken({
    pk: `RUN#${runId}`,
    sk: `AUD#${pad(next.item)}#${pad(next.seq)}#${next.prevHash}${next.transcript ? `#MSG#${pad(next.transcript.seq)}#${pad(next.transcript.turn)}` : ''}`,
  })!;

/** A checkpoint in an owner chain: the next entry's seq and the hash of the entry before it. */
export type Checkpoint = { seq: number; prevHash: string };
export type OwnerAuditSection = 'changes' | 'anchors' | 'signed';

/**
 * Where an owner's audit page starts: the section (changes, then anchors, then signed heads), each chain's
 * checkpoint (a finished chain's is its end), and the signed heads shown so far (their count and last key).
 */
export type OwnerAuditCursor = {
  section: OwnerAuditSection;
  changes: Checkpoint;
  anchors: Checkpoint;
  signed: { index: number; after?: string };
};

const OWNER_SK =
  /^AUDIT#(changes|anchors|signed)#(\d{9})#([0-9a-f]{64})#(\d{9})#([0-9a-f]{64})#(\d{9})#((?:SIGNED#\d{9}#\d{9})?)$/;

export function ownerAuditCursor(owner: string, token: string | undefined): OwnerAuditCursor | undefined {
  const checked = checkedToken(token, tokenShapes.ownerAudit(owner));
  if (checked === undefined) return undefined;
  const match = OWNER_SK.exec(String(decodeToken(checked)?.sk));
  if (!match) throw badToken();
  const after = match[7];
  return {
    section: match[1] as OwnerAuditSection,
    changes: { seq: Number(match[2]), prevHash: match[3]! },
    anchors: { seq: Number(match[4]), prevHash: match[5]! },
    signed: { index: Number(match[6]), ...(after ? { after } : {}) },
  };
}

export function ownerAuditToken(owner: string, next: OwnerAuditCursor): string {
  const { section, changes, anchors, signed } = next;
  const sk = `AUDIT#${section}#${pad(changes.seq)}#${changes.prevHash}#${pad(anchors.seq)}#${anchors.prevHash}#${pad(signed.index)}#${signed.after ?? ''}`;
  return encodeToken({ pk: `OWNER#${owner}`, sk })!;
}
