/**
 * The audit chains read a page at a time (GET /v1/runs/{id}/audit and GET /v1/audit, paged under Lambda's 6 MB
 * response limit): a run's entries from one seq on, an owner chain from one seq on, the owner's signed heads
 * after one key, and the entries of the owner chains at the seqs a page of signed heads names. Each reads about
 * what its page returns (key-range.ts), never the whole chain. Entries come as stored, NOT schema-checked: the
 * verifier names a broken one.
 */
import { BatchGetCommand } from '@aws-sdk/lib-dynamodb';
import { auditEntriesOf } from './audit-items.ts';
import { backOff } from './backoff.ts';
import type { StoreContext } from './client.ts';
import { KEY_ATTRIBUTES } from './codec.ts';
import { readKeyRange } from './key-range.ts';
import { keys, prefixes } from './keys.ts';

/** Sorts after every `<prefix><digits>` key and before any other key starting with the prefix's letters. */
const AFTER_DIGITS = '~';

const bodyOf = (item: Record<string, unknown>) =>
  Object.fromEntries(Object.entries(item).filter(([name]) => !KEY_ATTRIBUTES.includes(name)));

/** Where a page of a run's chain starts: the seq its item key names (`AUD#<item>`) and its first entry's seq. */
export type AuditRangeStart = { item: number; seq: number };
/** Entries read from `start` on, each with the key seq of the item holding it; `more`: items may follow. */
export type AuditRange = { entries: { entry: unknown; item: number }[]; more: boolean };

/**
 * A run's audit entries from `start.seq` on, read from the item `AUD#<start.item>` (entries are stored a
 * transaction's worth to an item, keyed by the seq of its first entry: audit-items.ts) until `bytes` as stored.
 * An entry's place is taken from its item's key (the verifier checks the entry's own seq and link).
 */
export async function readAuditRange(
  ctx: StoreContext,
  runId: string,
  start: AuditRangeStart,
  bytes: number,
): Promise<AuditRange> {
  const read = await readKeyRange(ctx, {
    pk: keys.run(runId).pk,
    from: keys.audit(runId, start.item).sk,
    to: `${prefixes.audit}${AFTER_DIGITS}`,
    bytes,
  });
  const entries = read.items.flatMap((item) => {
    const itemSeq = Number(String(item.sk).slice(prefixes.audit.length));
    return auditEntriesOf([item])
      .map((entry, index) => ({ entry, item: itemSeq, at: itemSeq + index }))
      .filter(({ at }) => at >= start.seq)
      .map(({ entry }) => ({ entry, item: itemSeq }));
  });
  return { entries, more: read.more };
}

export type OwnerChain = 'changes' | 'anchors';
const chainKey = { changes: keys.ownerChange, anchors: keys.ownerAnchor } as const;
const chainPrefix = { changes: prefixes.ownerChange, anchors: prefixes.ownerAnchor } as const;

/** An owner chain's entries from `seq` on, until `bytes` as stored (keys removed). */
export async function readOwnerChainRange(
  ctx: StoreContext,
  owner: string,
  chain: OwnerChain,
  seq: number,
  bytes: number,
): Promise<{ entries: unknown[]; more: boolean }> {
  const read = await readKeyRange(ctx, {
    pk: `OWNER#${owner}`,
    from: chainKey[chain](owner, seq).sk,
    to: `${chainPrefix[chain]}${AFTER_DIGITS}`,
    bytes,
  });
  return { entries: read.items.map(bodyOf), more: read.more };
}

/** The owner's signed heads after the key `after` (all from the first without it), until `bytes` or `limit`. */
export async function readSignedHeadRange(
  ctx: StoreContext,
  owner: string,
  from: { after?: string; bytes: number; limit: number },
): Promise<{ heads: { sk: string; entry: unknown }[]; more: boolean }> {
  const read = await readKeyRange(ctx, {
    pk: `OWNER#${owner}`,
    from: prefixes.signedHead,
    to: `${prefixes.signedHead}${AFTER_DIGITS}`,
    ...(from.after !== undefined ? { after: from.after } : {}),
    bytes: from.bytes,
    limit: from.limit,
  });
  return { heads: read.items.map((item) => ({ sk: String(item.sk), entry: bodyOf(item) })), more: read.more };
}

/** The owner's newest signed head (the last by key: keys order heads by the lengths they cover). */
export async function readNewestSignedHead(ctx: StoreContext, owner: string): Promise<unknown> {
  const read = await readKeyRange(ctx, {
    pk: `OWNER#${owner}`,
    from: prefixes.signedHead,
    to: `${prefixes.signedHead}${AFTER_DIGITS}`,
    bytes: 1,
    limit: 1,
    backwards: true,
  });
  const item = read.items[0];
  return item === undefined ? undefined : bodyOf(item);
}

/** BatchGetItem takes at most 100 keys (https://docs.aws.amazon.com/amazondynamodb/latest/APIReference/API_BatchGetItem.html). */
const BATCH_KEYS = 100;
const UNPROCESSED_ROUNDS = 6;
const UNPROCESSED_BACKOFF = { baseMs: 25, capMs: 800 };

/**
 * The `hash` of the owner chains' entries at `seqs` (each read strongly consistent, `ConsistentRead` per table),
 * by seq; a seq with no entry is absent. Keys DynamoDB leaves unprocessed are asked again after a backoff, as
 * the BatchGetItem page recommends; still unprocessed after that (a throttled table), the read fails: a signed
 * head is never passed for want of its entry.
 */
export async function readOwnerChainHashes(
  ctx: StoreContext,
  owner: string,
  seqs: Record<OwnerChain, readonly number[]>,
): Promise<Record<OwnerChain, Map<number, { hash: unknown }>>> {
  const found: Record<OwnerChain, Map<number, { hash: unknown }>> = {
    changes: new Map(),
    anchors: new Map(),
  };
  const wanted = (['changes', 'anchors'] as const).flatMap((chain) =>
    [...new Set(seqs[chain])].map((seq) => ({ chain, seq, key: chainKey[chain](owner, seq) })),
  );
  const bySk = new Map(wanted.map((want) => [want.key.sk, want]));
  for (let i = 0; i < wanted.length; i += BATCH_KEYS) {
    let pending: Record<string, unknown>[] = wanted.slice(i, i + BATCH_KEYS).map((want) => want.key);
    for (let round = 1; pending.length > 0; round++) {
      if (round > UNPROCESSED_ROUNDS)
        throw new Error('the audit chain entries could not be read (throttled)');
      if (round > 1) await backOff(round, UNPROCESSED_BACKOFF);
      const response = await ctx.doc.send(
        new BatchGetCommand({
          RequestItems: {
            [ctx.table]: {
              Keys: pending,
              ConsistentRead: true,
              ProjectionExpression: 'sk, #hash',
              ExpressionAttributeNames: { '#hash': 'hash' },
            },
          },
        }),
      );
      for (const item of response.Responses?.[ctx.table] ?? []) {
        const want = bySk.get(String(item.sk));
        if (want) found[want.chain].set(want.seq, { hash: item.hash });
      }
      pending = (response.UnprocessedKeys?.[ctx.table]?.Keys ?? []) as Record<string, unknown>[];
    }
  }
  return found;
}
