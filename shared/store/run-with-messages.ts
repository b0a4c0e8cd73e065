/**
 * A run and its transcript in one Query (the turn's first read, shared/core/turn-context.ts). The run item and
 * its messages share the run's partition, and in sort-key order (keys.ts) the partition holds
 * `AUD#… < HTK#… < MSG#… < NOTE#… < RESUME < RUN < STEP#… < TOOL#…`: `sk BETWEEN 'MSG#' AND 'RUN'` reads the
 * messages (with their continuation parts), then any notes and a graph run's resume token, then the run item,
 * last. Audit items, human tasks, steps and ledger rows are outside the range and never read.
 *
 * What it relies on (AWS docs):
 * - Strongly consistent: `ConsistentRead` on a Query of the table returns every write acknowledged before it
 *   (https://docs.aws.amazon.com/amazondynamodb/latest/developerguide/HowItWorks.ReadConsistency.html).
 * - Paged: one Query returns at most 1 MB; a `LastEvaluatedKey` means more, read from it as
 *   `ExclusiveStartKey` until none is returned
 *   (https://docs.aws.amazon.com/amazondynamodb/latest/developerguide/Query.Pagination.html). Items come in
 *   sort-key order, so a transcript over 1 MB puts the run item on the last page.
 * - Not a snapshot: a Query is read-committed, not isolated from a transaction committing meanwhile
 *   (https://docs.aws.amazon.com/amazondynamodb/latest/developerguide/transaction-apis.html#transaction-isolation),
 *   and pages are separate reads. The caller checks the transcript against the run's `messageCount`
 *   (messages are append-only) and reads it again when they differ, as it did with two parallel reads.
 * - Cost: a Query sums the sizes of the items it read and rounds up to 4 KB once
 *   (https://docs.aws.amazon.com/amazondynamodb/latest/developerguide/read-write-operations.html), where a
 *   GetItem of the run and a Query of the messages were rounded apart (and each costs a unit even when empty):
 *   ceil((run + messages) / 4 KB) <= ceil(run / 4 KB) + ceil(messages / 4 KB). Notes (notes_put/notes_append,
 *   up to an item each) and a graph run's resume token sort inside the range and are read and billed too: at
 *   most ceil(their bytes / 4 KB) more, nothing more while they fit in the slack of that rounding.
 *
 * Notes and the resume token are dropped by key in code, not by a FilterExpression: a filter cannot name a key
 * attribute (the sort key is the only thing that tells them apart), and it would save no read units anyway,
 * since it applies after the items are read and after the 1 MB limit
 * (https://docs.aws.amazon.com/amazondynamodb/latest/developerguide/Query.FilterExpression.html).
 */
import type { TranscriptMessage } from '../schemas/message.ts';
import { type Run, RunSchema } from '../schemas/run.ts';
import type { WorkflowHead } from '../schemas/workflow-record.ts';
import type { StoreContext } from './client.ts';
import { decodeItem } from './codec.ts';
import { keys, prefixes } from './keys.ts';
import { assembleMessages } from './message-assembly.ts';
import { queryAllItems } from './reads.ts';

export type RunWithMessages = {
  run: Run | undefined;
  messages: TranscriptMessage[];
  /** The workflow head named by the caller's hint, read in the same turn start (`value` undefined: none). */
  head?: { value: WorkflowHead | undefined };
};

/**
 * With `fromSeq`, only the messages from that seq on are read (and returned): the caller holds the ones before
 * (transcript-cache.ts). `MSG#<seq>` sorts after every part of the message before it (`MSG#<seq-1>#<part>`).
 */
export async function getRunWithMessages(
  ctx: StoreContext,
  runId: string,
  fromSeq = 0,
): Promise<RunWithMessages> {
  const { pk, sk: runSk } = keys.run(runId);
  const from = fromSeq > 0 ? keys.message(runId, fromSeq).sk : prefixes.message;
  const items = await queryAllItems(ctx, {
    KeyConditionExpression: 'pk = :pk AND sk BETWEEN :from AND :to',
    ExpressionAttributeValues: { ':pk': pk, ':from': from, ':to': runSk },
  });
  // NOTE#… and RESUME sort between the messages and the run: not the turn's.
  const runItem = items.find((item) => item.sk === runSk);
  const messageItems = items.filter((item) => String(item.sk).startsWith(prefixes.message));
  return {
    run: runItem ? decodeItem(RunSchema, runItem) : undefined,
    messages: assembleMessages(messageItems),
  };
}
