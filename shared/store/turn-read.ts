/**
 * A turn's first read by key, in a container that holds the run's transcript only up to some message (or none
 * of it): the run item, the messages it does not hold and the workflow head, in one strongly consistent
 * BatchGetItem (`ConsistentRead` per table:
 * https://docs.aws.amazon.com/amazondynamodb/latest/APIReference/API_BatchGetItem.html), where the Query of the
 * run with its transcript (run-with-messages.ts) and, once the run named its workflow, a GetItem of the head
 * took two requests one after the other. The keys come from hints: the head's from the execution's start
 * (a run's first turn: shared/runs/start-run.ts) or from the previous turn's outcome, which also says how many
 * messages the run held when it routed here (`ReadHint`, shared/core/outcome.ts, carried by the state machine:
 * docs/state-machine.md). The run read decides: whose head is used (shared/core/turn-context.ts), and how many
 * messages there are.
 *
 * Which message items: `MSG#<seq>` for seq from the first one the container does not hold (`fromSeq`) up to the
 * hinted count, at most `TURN_READ_MAX_MESSAGES` of them (the request's 100 keys less the run and the head). A
 * message is one item unless it is over `MESSAGE_ITEM_BUDGET_BYTES` (380,000 bytes), when its head item records
 * `parts` and continuation items `MSG#<seq>#0001…` follow (message-items.ts); those are not named (their number
 * is not known ahead).
 *
 * What is used (the read is not a snapshot: each item is read committed on its own, so a commit landing
 * meanwhile can show in the run item and not in a message read before it): the messages from `fromSeq` in seq
 * order while each is there, records no `parts` and is below the run's `messageCount`; they are assembled and
 * validated as the Query's items are (message-assembly.ts). They are the transcript when they reach the run's
 * `messageCount` (`complete`). Otherwise (a hint behind the run: another container committed since, a resume
 * or a decision added a message; a message in parts; one the read missed) the caller reads the rest by Query
 * from the first message not read, keeping the head read here. Message items are written once, in the commit
 * that counts them, and never changed (transcript-cache.ts), so a message read is the one any later read sees.
 *
 * One request, its unprocessed keys not asked again: a response holds at most 16 MB, and "more than 1MB per
 * partition" is returned in part with the rest as `UnprocessedKeys` (the API page above), and every key here
 * but the head's is in the run's partition, so a transcript over about 1 MB always comes back in part. Asking
 * again would take a request per MB, as the Query's pages do, so the messages left unprocessed end the prefix
 * like a missing one, and the Query reads the rest. Undefined when the run item or the head was left
 * unprocessed (throttling): the caller reads as without it, the Query and the head's GetItem, whose
 * throttling the SDK's own retries handle.
 *
 * Cost: each BatchGetItem key is rounded up to 4 KB on its own ("DynamoDB processes each item in the batch as
 * an individual GetItem request, so DynamoDB first rounds up the size of each item to the next 4 KB boundary,
 * and then calculates the total size":
 * https://docs.aws.amazon.com/amazondynamodb/latest/developerguide/read-write-operations.html), where the Query
 * sums the items and rounds once: up to one read unit more per message named (less than 4 KB lost on each),
 * for one request and one round trip fewer. A key of a missing item costs a read unit too, so no key is named
 * that the hint does not say exists.
 */

import { BatchGetCommand } from '@aws-sdk/lib-dynamodb';
import type { TranscriptMessage } from '../schemas/message.ts';
import { type Run, RunSchema } from '../schemas/run.ts';
import { type WorkflowHead, WorkflowHeadSchema } from '../schemas/workflow-record.ts';
import { BATCH_GET_MAX_KEYS, type HeadHint } from './approvals.ts';
import type { StoreContext } from './client.ts';
import { decodeItem } from './codec.ts';
import { keys } from './keys.ts';
import { assembleMessages } from './message-assembly.ts';

/** Messages one turn read names by key: a BatchGetItem's 100 keys less the run item and the head. */
export const TURN_READ_MAX_MESSAGES = BATCH_GET_MAX_KEYS - 2;

export type TurnRead = {
  run: Run | undefined;
  head: { value: WorkflowHead | undefined };
  /** The messages read, from `fromSeq` on with no gap (validated): all of them up to the run's count when `complete`. */
  messages: TranscriptMessage[];
  complete: boolean;
};

/**
 * The run, its messages `fromSeq` … `messageCount - 1` and the head `headHint` names, by key in one request (see
 * above). The caller keeps `messageCount - fromSeq` within `TURN_READ_MAX_MESSAGES`.
 */
export async function readTurnByKey(
  ctx: StoreContext,
  runId: string,
  headHint: HeadHint,
  fromSeq: number,
  messageCount: number,
): Promise<TurnRead | undefined> {
  const runKey = keys.run(runId);
  const headKey = keys.workflowHead(headHint.owner, headHint.workflowId);
  const messageKeys = Array.from({ length: Math.max(0, messageCount - fromSeq) }, (_, i) =>
    keys.message(runId, fromSeq + i),
  );
  const response = await ctx.doc.send(
    new BatchGetCommand({
      RequestItems: { [ctx.table]: { Keys: [runKey, headKey, ...messageKeys], ConsistentRead: true } },
    }),
  );
  const unprocessed = (response.UnprocessedKeys?.[ctx.table]?.Keys ?? []) as { pk: string; sk: string }[];
  const isUnprocessed = (key: { pk: string; sk: string }) =>
    unprocessed.some((left) => left.pk === key.pk && left.sk === key.sk);
  if (isUnprocessed(runKey) || isUnprocessed(headKey)) return undefined;
  const found = (response.Responses?.[ctx.table] ?? []) as Record<string, unknown>[];
  const bySk = new Map<string, Record<string, unknown>>();
  for (const item of found) if (item.pk === runKey.pk) bySk.set(String(item.sk), item);
  const headItem = found.find((item) => item.pk === headKey.pk && item.sk === headKey.sk);
  const runItem = bySk.get(runKey.sk);
  const run = runItem ? decodeItem(RunSchema, runItem) : undefined;
  const head = { value: headItem ? decodeItem(WorkflowHeadSchema, headItem) : undefined };
  // No run: nothing of it to read (the Query would find its run item missing too).
  if (!run) return { run, head, messages: [], complete: true };
  const whole: Record<string, unknown>[] = [];
  for (const key of messageKeys) {
    const item = bySk.get(key.sk);
    if (fromSeq + whole.length >= run.messageCount || !item || item.parts !== undefined) break;
    whole.push(item);
  }
  const messages = assembleMessages(whole);
  return { run, head, messages, complete: fromSeq + messages.length === run.messageCount };
}
