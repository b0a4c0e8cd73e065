/**
 * How a run's audit entries are laid out in items (docs/data-model.md, "Audit items").
 *
 * Written: the entries sealed by one transaction go in ONE item, `RUN#r / AUD#<seq of its first entry>`,
 * holding them in chain order under `entries`. DynamoDB's cost of a transaction grows with its items (on AWS a
 * transactional write costs 2 write units per KB of each item, rounded up per item:
 * https://docs.aws.amazon.com/amazondynamodb/latest/developerguide/read-write-operations.html), so one item
 * instead of one per entry. Each
 * entry is still sealed and linked on its own (seal.ts): verification is the same, entry by entry. The entries
 * are split over several items only when one item would pass DynamoDB's 400 KB item limit
 * (https://docs.aws.amazon.com/amazondynamodb/latest/developerguide/ServiceQuotas.html). Two or more entries are
 * stored compact: what they share (schema version, owner, run, time) once under `common`, and no `prevHash` but
 * the first's (each is the hash before it), so a plain turn's audit items are about a quarter smaller.
 *
 * Read: every layout, in key order. An item of the batch layout has exactly one attribute besides its keys,
 * `entries`, a list, or two, `entries` and the `common` map of the compact form; anything else is one entry as
 * stored before the batch layout (`RUN#r / AUD#<seq>` with the entry's fields), which a deployed table still
 * holds. The key of an item is not trusted for the order: the verifier checks each entry's own seq and link, so
 * a reordered, dropped or spliced entry fails there.
 */
import { type AuditEntry, AuditEntrySchema } from '../audit/index.ts';
import { DYNAMO_ITEM_LIMIT_BYTES, itemBytes, valueBytes } from '../core/item-size.ts';
import { KEY_ATTRIBUTES } from './codec.ts';
import { ItemCorruptError } from './errors.ts';
import { keys } from './keys.ts';

/** The items holding `entries` (consecutive, as sealed by one transaction): one unless 400 KB would be passed. */
export function auditItems(runId: string, entries: readonly AuditEntry[]): Record<string, unknown>[] {
  const items: Record<string, unknown>[] = [];
  let group: AuditEntry[] = [];
  // The size of the group's item (core/item-size.ts), kept as it grows: its keys and an empty list, plus 1 byte
  // and the entry's size per entry, which is what `itemBytes` of the whole item adds up to. Each entry is sized
  // once, not once per entry after it. Sized with every entry whole: the compact item written is smaller.
  let groupBytes = 0;
  const close = () => {
    if (group.length > 0) items.push({ ...keys.audit(runId, group[0]!.seq), ...compactEntries(group) });
    group = [];
  };
  for (const entry of entries) {
    const entryBytes = 1 + valueBytes(entry);
    // An entry too large even alone keeps its own item, and the transaction's size check refuses it.
    if (group.length > 0 && groupBytes + entryBytes > DYNAMO_ITEM_LIMIT_BYTES) close();
    if (group.length === 0) groupBytes = itemBytes({ ...keys.audit(runId, entry.seq), entries: [] });
    group.push(entry);
    groupBytes += entryBytes;
  }
  close();
  return items;
}

/** The fields one transaction's entries share: sealed with one owner, run and time (seal.ts). */
const COMMON_FIELDS = ['schemaVersion', 'owner', 'runId', 'at'] as const;

/**
 * `entries` as an item stores them. Two or more entries that chain (each `prevHash` the hash of the one before,
 * as sealing links them) are stored compact: what they share once, under `common`, and each entry without
 * it and without its `prevHash` but the first's. A single entry is stored whole: `common` would add bytes.
 */
function compactEntries(group: readonly AuditEntry[]): {
  entries: unknown[];
  common?: Record<string, unknown>;
} {
  const chained = group.every((entry, index) => index === 0 || entry.prevHash === group[index - 1]!.hash);
  if (group.length < 2 || !chained) return { entries: [...group] };
  const first = group[0]!;
  const common: Record<string, unknown> = {};
  for (const name of COMMON_FIELDS) common[name] = first[name];
  const entries = group.map((entry, index) => {
    const stored: Record<string, unknown> = {};
    for (const [name, value] of Object.entries(entry)) {
      if (Object.hasOwn(common, name) && common[name] === value) continue;
      if (name === 'prevHash' && index > 0) continue;
      stored[name] = value;
    }
    return stored;
  });
  return { common, entries };
}

/** The order of an entry's fields as sealed (entry.ts), so an expanded entry reads like a whole one. */
const ENTRY_FIELDS = [
  'schemaVersion',
  'owner',
  'runId',
  'seq',
  'at',
  'type',
  'actor',
  'data',
  'prevHash',
  'hash',
];

/**
 * The entries of a compact item, whole again: each is `common`, the previous entry's `hash` as its `prevHash`
 * (the first carries its own), then its stored fields, which win. Nothing is checked here: the verifier hashes
 * every entry whole, so a changed `common` fails the item's first entry, a changed `hash` its own entry (and the
 * next one's link), and a field added to `common` every entry's strict schema.
 */
function expandEntries(common: Record<string, unknown>, stored: readonly unknown[]): unknown[] {
  let previousHash: unknown;
  return stored.map((element) => {
    if (!isRecord(element)) {
      previousHash = undefined;
      return element;
    }
    const merged: Record<string, unknown> = {
      ...common,
      ...(previousHash === undefined ? {} : { prevHash: previousHash }),
      ...element,
    };
    previousHash = element.hash;
    const entry: Record<string, unknown> = {};
    for (const name of ENTRY_FIELDS) if (Object.hasOwn(merged, name)) entry[name] = merged[name];
    for (const [name, value] of Object.entries(merged)) if (!Object.hasOwn(entry, name)) entry[name] = value;
    return entry;
  });
}

const isRecord = (value: unknown): value is Record<string, unknown> =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

/**
 * The entries of raw audit items (keys included, in key order), in either layout, NOT schema-checked: the
 * verifier must be able to name an entry that no longer parses instead of failing the read.
 */
export function auditEntriesOf(items: readonly Record<string, unknown>[]): unknown[] {
  return items.flatMap((item) => entriesOfItem(item).entries);
}

/** One item's entries, and whether it is of the batch layout (whole or compact). */
function entriesOfItem(item: Record<string, unknown>): { entries: unknown[]; batch: boolean } {
  const body = Object.fromEntries(Object.entries(item).filter(([name]) => !KEY_ATTRIBUTES.includes(name)));
  const names = Object.keys(body).sort();
  if (names.length === 1 && names[0] === 'entries' && Array.isArray(body.entries))
    return { entries: body.entries, batch: true };
  if (names.length === 2 && names[0] === 'common' && names[1] === 'entries') {
    const { common, entries } = body;
    if (isRecord(common) && Array.isArray(entries))
      return { entries: expandEntries(common, entries), batch: true };
  }
  return { entries: [body], batch: false };
}

/** The entries of raw audit items, each schema-checked; an unreadable one names its item's key. */
export function parseAuditItems(items: readonly Record<string, unknown>[]): AuditEntry[] {
  return items.flatMap((item) => {
    const { entries, batch } = entriesOfItem(item);
    return entries.map((entry, index) => {
      const parsed = AuditEntrySchema.safeParse(entry);
      if (parsed.success) return parsed.data;
      const issue = parsed.error.issues[0];
      const where = [...(batch ? ['entries', index] : []), ...(issue?.path ?? [])].join('.') || '(item)';
      throw new ItemCorruptError(`${String(item.pk)}/${String(item.sk)}`, `${where}: ${issue?.message}`, {
        cause: parsed.error,
      });
    });
  });
}
