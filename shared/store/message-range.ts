/**
 * A run's transcript from one message on, read only as far as a page needs (GET /v1/runs/{id}/transcript):
 * items from `MSG#<seq>` in key order, a Query at a time (each at most 1 MB:
 * https://docs.aws.amazon.com/amazondynamodb/latest/developerguide/Query.Pagination.html), until it holds
 * `count` whole messages, or whole messages of at least `bytes` as stored (a message costs at least its
 * stored size once sent), or the transcript ends. Messages come back whole (message-assembly.ts).
 */
import { QueryCommand } from '@aws-sdk/lib-dynamodb';
import { itemBytes } from '../core/item-size.ts';
import type { TranscriptMessage } from '../schemas/message.ts';
import type { StoreContext } from './client.ts';
import { keys } from './keys.ts';
import { assembleMessages } from './message-assembly.ts';

const PART_SK = /^MSG#\d{6}#\d{4}$/;
/** Sorts after every message item of the partition (`MSG#` + digits) and before anything else. */
const AFTER_MESSAGES = 'MSG#~';

export type MessageRange = { messages: TranscriptMessage[]; more: boolean };

export async function readMessageRange(
  ctx: StoreContext,
  runId: string,
  from: {
    seq: number;
    count: number;
    bytes: number;
    /**
     * Items a Query reads at most (its `Limit`): without it each Query reads up to 1 MB whatever `count` asks.
     * `count + 1` reads the messages asked for and the head after them (which shows they are whole). @default none
     */
    itemsPerQuery?: number;
  },
): Promise<MessageRange> {
  const items: Record<string, unknown>[] = [];
  /** Index in `items` of each message's head item. */
  const heads: number[] = [];
  let readBytes = 0;
  let wholeBytes = 0;
  let startKey: Record<string, unknown> | undefined;
  // Whole messages are those before the last head read (its parts may follow in the next Query).
  const enough = () => heads.length > from.count || (heads.length > 1 && wholeBytes >= from.bytes);
  do {
    const response = await ctx.doc.send(
      new QueryCommand({
        TableName: ctx.table,
        KeyConditionExpression: 'pk = :pk AND sk BETWEEN :from AND :to',
        ExpressionAttributeValues: {
          ':pk': keys.run(runId).pk,
          ':from': keys.message(runId, from.seq).sk,
          ':to': AFTER_MESSAGES,
        },
        ConsistentRead: true,
        ExclusiveStartKey: startKey,
        ...(from.itemsPerQuery === undefined ? {} : { Limit: from.itemsPerQuery }),
      }),
    );
    for (const item of response.Items ?? []) {
      if (!PART_SK.test(String(item.sk))) {
        wholeBytes = readBytes;
        heads.push(items.length);
      }
      items.push(item);
      readBytes += itemBytes(item);
    }
    startKey = response.LastEvaluatedKey;
  } while (startKey && !enough());
  if (!startKey && heads.length <= from.count) return { messages: assembleMessages(items), more: false };
  // The last head's message may be incomplete: it starts the next page. Keep at most `count` messages.
  const keep = Math.min(heads.length - 1, from.count);
  return { messages: assembleMessages(items.slice(0, heads[keep])), more: true };
}
