/** Growing a stored run's audit chain past one API page, as the store stores it (tests of paged audit answers). */
import { UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { type AuditEntry, appendAuditEntry } from '../../shared/audit/index.ts';
import { auditItems } from '../../shared/store/audit-items.ts';
import type { DynamoStore } from '../../shared/store/index.ts';
import { keys } from '../../shared/store/keys.ts';
import { jsonText, putItems } from './lambda-pages.ts';

/**
 * Appends `count` entries of `bytes` of JSON-looking text each to the run's chain, ten entries an item (so pages
 * start in the middle of an item), and moves the run's recorded head to the last one. Returns the whole chain.
 */
export async function growRunChain(
  store: DynamoStore,
  runId: string,
  count: number,
  bytes: number,
  at = '2026-12-02T00:00:00.000Z',
): Promise<AuditEntry[]> {
  const stored = await store.listAudit(runId);
  let head = stored.at(-1)!;
  const added: AuditEntry[] = [];
  for (let i = 0; i < count; i++) {
    head = appendAuditEntry(head, {
      owner: head.owner,
      runId,
      at,
      type: 'status_changed',
      actor: 'system',
      data: { note: jsonText(bytes), i },
    });
    added.push(head);
  }
  for (let i = 0; i < added.length; i += 10) await putItems(store, auditItems(runId, added.slice(i, i + 10)));
  await store.ctx.doc.send(
    new UpdateCommand({
      TableName: store.ctx.table,
      Key: keys.run(runId),
      UpdateExpression: 'SET audit = :audit',
      ExpressionAttributeValues: { ':audit': { seq: head.seq + 1, head: head.hash } },
    }),
  );
  return [...stored, ...added];
}
