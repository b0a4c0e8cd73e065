/**
 * Reading an owner's live grant of a client: one read under the per-owner key, and a second under the key of
 * before grants were per owner (moved on its next change), which is only ever the same owner's.
 */
import type { StoreContext } from '../store/client.ts';
import { getItem } from '../store/reads.ts';
import { type GrantRecord, GrantRecordSchema, jobKeys } from './records.ts';

/** A live grant and where it is stored: `legacy`, under the key of before grants were per owner. */
export type GrantHead = { record: GrantRecord; legacy: boolean };

/** `owner`'s live grant of `clientId`; another owner's grant of the same client id is never read. */
export async function getGrantHead(
  ctx: StoreContext,
  owner: string,
  clientId: string,
): Promise<GrantHead | undefined> {
  const record = await getItem(ctx, jobKeys.grantHead(owner, clientId), GrantRecordSchema);
  if (record) return { record, legacy: false };
  const legacy = await getItem(ctx, jobKeys.legacyGrantHead(clientId), GrantRecordSchema);
  return legacy?.owner === owner ? { record: legacy, legacy: true } : undefined;
}
