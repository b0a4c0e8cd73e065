/**
 * Test support: a run's audit items as stored, in either layout (shared/store/audit-items.ts), and edits of
 * them behind the runtime's back, as an attacker with write access to the table could.
 */
import { DeleteCommand, PutCommand } from '@aws-sdk/lib-dynamodb';
import type { AuditEntry } from '../../shared/audit/index.ts';
import { auditEntriesOf } from '../../shared/store/audit-items.ts';
import type { DynamoStore } from '../../shared/store/index.ts';
import { keys, prefixes } from '../../shared/store/keys.ts';
import { queryPrefixItems } from '../../shared/store/reads.ts';

/** The run's raw audit items (keys included), in key order. */
export function storedAuditItems(store: DynamoStore, runId: string): Promise<Record<string, unknown>[]> {
  return queryPrefixItems(store.ctx, keys.run(runId).pk, prefixes.audit);
}

/** Replaces the run's audit items with `items` (raw, keys included). */
export async function replaceAuditItems(
  store: DynamoStore,
  runId: string,
  items: readonly Record<string, unknown>[],
): Promise<void> {
  const { doc, table } = store.ctx;
  for (const old of await storedAuditItems(store, runId))
    await doc.send(new DeleteCommand({ TableName: table, Key: { pk: old.pk, sk: old.sk } }));
  for (const item of items) await doc.send(new PutCommand({ TableName: table, Item: item }));
}

/** Rewrites the stored item that holds entry `seq`, with that entry replaced by `edit(entry)`. */
export async function editStoredAuditEntry(
  store: DynamoStore,
  runId: string,
  seq: number,
  edit: (entry: AuditEntry) => unknown,
): Promise<void> {
  for (const item of await storedAuditItems(store, runId)) {
    const entries = auditEntriesOf([item]) as AuditEntry[];
    const index = entries.findIndex((entry) => entry.seq === seq);
    if (index < 0) continue;
    const edited = entries.with(index, edit(entries[index]!) as AuditEntry);
    const Item = Array.isArray(item.entries)
      ? { pk: item.pk, sk: item.sk, entries: edited }
      : { pk: item.pk, sk: item.sk, ...(edited[0] as object) };
    await store.ctx.doc.send(new PutCommand({ TableName: store.ctx.table, Item }));
    return;
  }
  throw new Error(`no stored audit entry ${seq} in run ${runId}`);
}
