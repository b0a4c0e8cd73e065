/**
 * A run's first turn in a container that holds none of its transcript: the run item, its first message and its
 * workflow head by key, in one strongly consistent BatchGetItem (`batchGetItems`: `ConsistentRead`, unprocessed
 * keys asked again; https://docs.aws.amazon.com/amazondynamodb/latest/APIReference/API_BatchGetItem.html), where
 * the Query of the run with its transcript (run-with-messages.ts) and, once the run named its workflow, a
 * GetItem of the head took two requests one after the other. The head's key comes from the execution's start
 * (a hint: the run read decides whose head is used, shared/core/turn-context.ts).
 *
 * Which message items: `MSG#000000` alone. A run starts with one message (core/new-run.ts: `messageCount` 1,
 * the trigger's text with the run input, at most 256 KB), and a message is one item unless it is over
 * `MESSAGE_ITEM_BUDGET_BYTES` (380,000 bytes), when its head item records `parts` and continuation items
 * `MSG#000000#0001…` follow (message-items.ts). A first message that large is rare, and a continuation key
 * asked on every first turn would cost a read unit each time even when absent, so it is not asked.
 *
 * The transcript is used only when it is certainly the whole of it: the run's `messageCount` is 1, its first
 * message's item is there and records no `parts`; it is assembled and validated as the Query's items are
 * (message-assembly.ts). Otherwise (`complete` false: more messages, a message in parts, a run resumed or
 * continued), the caller reads the transcript by Query from seq 0, as without this read, keeping the head read
 * here. Undefined when keys were still unprocessed after the retries: the caller reads as without it.
 *
 * Cost: each BatchGetItem key is rounded up to 4 KB on its own ("DynamoDB processes each item in the batch as
 * an individual GetItem request, so DynamoDB first rounds up the size of each item to the next 4 KB boundary,
 * and then calculates the total size":
 * https://docs.aws.amazon.com/amazondynamodb/latest/developerguide/read-write-operations.html), so a first turn
 * whose run and message are under 4 KB together reads 3 RRU where the Query (summed, then rounded) and the head's
 * GetItem read 2: one read unit more per run, for one request and one round trip fewer.
 */
import type { TranscriptMessage } from '../schemas/message.ts';
import { type Run, RunSchema } from '../schemas/run.ts';
import { type WorkflowHead, WorkflowHeadSchema } from '../schemas/workflow-record.ts';
import { batchGetItems, type HeadHint } from './approvals.ts';
import type { StoreContext } from './client.ts';
import { decodeItem } from './codec.ts';
import { keys } from './keys.ts';
import { assembleMessages } from './message-assembly.ts';

export type FirstTurnRead = {
  run: Run | undefined;
  head: { value: WorkflowHead | undefined };
} & ({ complete: true; messages: TranscriptMessage[] } | { complete: false });

/** The run, its first message and the head `headHint` names, by key in one request (see above). */
export async function readFirstTurn(
  ctx: StoreContext,
  runId: string,
  headHint: HeadHint,
): Promise<FirstTurnRead | undefined> {
  const runKey = keys.run(runId);
  const messageKey = keys.message(runId, 0);
  const headKey = keys.workflowHead(headHint.owner, headHint.workflowId);
  const found = await batchGetItems(ctx, [runKey, messageKey, headKey]);
  if (!found) return undefined;
  const itemOf = (key: { pk: string; sk: string }) =>
    found.find((item) => item.pk === key.pk && item.sk === key.sk);
  const runItem = itemOf(runKey);
  const messageItem = itemOf(messageKey);
  const headItem = itemOf(headKey);
  const run = runItem ? decodeItem(RunSchema, runItem) : undefined;
  const head = { value: headItem ? decodeItem(WorkflowHeadSchema, headItem) : undefined };
  // No run: nothing of it to read (the Query would find its run item missing too).
  if (!run) return { run, head, complete: true, messages: [] };
  const whole = run.messageCount === 1 && messageItem !== undefined && messageItem.parts === undefined;
  return whole
    ? { run, head, complete: true, messages: assembleMessages([messageItem]) }
    : { run, head, complete: false };
}
