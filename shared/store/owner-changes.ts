/**
 * The per-owner workflow-change chain (`OWNER#o / CHANGE#seq`, head `CHANGEHEAD`): every change to a
 * workflow is sealed into it IN THE SAME TRANSACTION as the change, fenced on the chain head, so a change
 * never lands unaudited and two concurrent changes cannot fork the chain.
 */
import { TransactionCanceledException } from '@aws-sdk/client-dynamodb';
import { TransactWriteCommand, type TransactWriteCommandInput } from '@aws-sdk/lib-dynamodb';
import {
  definitionHash,
  type OwnerChange,
  type OwnerChangeInput,
  OwnerChangeSchema,
  sealOwnerChange,
} from '../audit/index.ts';
import type { WorkflowHead, WorkflowVersion } from '../schemas/workflow-record.ts';
import * as z from '../zod.ts';
import type { StoreContext } from './client.ts';
import { keys, prefixes } from './keys.ts';
import { getItem, queryPrefix } from './reads.ts';

/** One item of a DynamoDB transaction. */
export type TransactItem = NonNullable<TransactWriteCommandInput['TransactItems']>[number];

const HeadSchema = z.object({ change: OwnerChangeSchema });
const MAX_ATTEMPTS = 8;

/** Who made a change when the caller did not say: only tests and seeds write without an identity. */
export const UNATTRIBUTED = 'system';

/** The change a new workflow or a new version makes. */
export function versionChange(
  head: WorkflowHead,
  version: WorkflowVersion,
  created: boolean,
): OwnerChangeInput {
  return {
    owner: head.owner,
    at: version.createdAt,
    type: created ? 'workflow_created' : 'workflow_version_added',
    author: version.author ?? UNATTRIBUTED,
    workflowId: head.workflowId,
    version: version.version,
    data: {
      name: head.name,
      definitionHash: definitionHash(version.definition),
      // An external workflow's engine and mode: promoting it (shadow → report_only → live) is on the chain.
      ...(version.definition.kind === 'external'
        ? { engine: version.definition.engine, mode: version.definition.mode }
        : {}),
    },
  };
}

/** The change a draft makes: saved, replaced in place, or published (with who published it). */
export function draftChange(
  head: WorkflowHead,
  version: WorkflowVersion,
  type: 'workflow_draft_saved' | 'workflow_draft_updated' | 'workflow_version_published',
  author: string,
  at: string,
): OwnerChangeInput {
  return {
    owner: head.owner,
    at,
    type,
    author,
    workflowId: head.workflowId,
    version: version.version,
    data: { name: head.name, definitionHash: definitionHash(version.definition) },
  };
}

/** The change a new head makes (enable, disable, delete). */
export function headChange(previous: WorkflowHead, head: WorkflowHead, author: string): OwnerChangeInput {
  const type = head.deleted
    ? 'workflow_deleted'
    : head.enabled !== previous.enabled
      ? head.enabled
        ? 'workflow_enabled'
        : 'workflow_disabled'
      : undefined;
  if (type === undefined)
    throw new Error(`workflow ${head.workflowId}: the new head changes nothing to audit`);
  return {
    owner: head.owner,
    at: head.updatedAt,
    type,
    author,
    workflowId: head.workflowId,
    version: head.latestVersion,
    data: { name: head.name, enabled: head.enabled },
  };
}

/**
 * Writes `items` and the owner's next change in one transaction. When only the chain head moved (another
 * change of the same owner committed first) the change is sealed again on the new head; when one of `items`
 * failed its condition, or the chain kept moving, `mapError` names the conflict (`busy` in the second case).
 * Nothing is written unless the change and its audit entry both are. Returns the sealed change.
 */
export async function transactWithChange(
  ctx: StoreContext,
  items: TransactItem[],
  input: OwnerChangeInput,
  mapError: (error: TransactionCanceledException, busy: boolean) => Error,
): Promise<OwnerChange> {
  for (let attempt = 1; ; attempt++) {
    const head = await getItem(ctx, keys.ownerChangeHead(input.owner), HeadSchema);
    const change = sealOwnerChange(head?.change, input);
    try {
      await ctx.doc.send(
        new TransactWriteCommand({
          TransactItems: [
            ...items,
            {
              Put: {
                TableName: ctx.table,
                Item: { ...keys.ownerChange(change.owner, change.seq), ...change },
                ConditionExpression: 'attribute_not_exists(pk)',
              },
            },
            {
              Put: {
                TableName: ctx.table,
                Item: { ...keys.ownerChangeHead(change.owner), change },
                ...(head
                  ? {
                      ConditionExpression: '#change.seq = :seq',
                      ExpressionAttributeNames: { '#change': 'change' },
                      ExpressionAttributeValues: { ':seq': head.change.seq },
                    }
                  : { ConditionExpression: 'attribute_not_exists(pk)' }),
              },
            },
          ],
        }),
      );
      return change;
    } catch (error) {
      if (!(error instanceof TransactionCanceledException)) throw error;
      const reasons = error.CancellationReasons ?? [];
      const chainOnly =
        reasons.length === items.length + 2 &&
        reasons.slice(0, items.length).every((reason) => !reason.Code || reason.Code === 'None');
      if (!chainOnly || attempt >= MAX_ATTEMPTS) throw mapError(error, chainOnly);
    }
  }
}

/** The owner's workflow changes in order, as stored (not schema-checked: the verifier names a broken one). */
export const listOwnerChangeItems = (ctx: StoreContext, owner: string): Promise<unknown[]> =>
  queryPrefix(ctx, keys.ownerChangeHead(owner).pk, prefixes.ownerChange, z.unknown());
