/**
 * The durable floor of a turn: the bare Anthropic SDK loop against the scripted server plus, per turn, one
 * strongly consistent GetItem (load the run) and one TransactWriteItems (store the turn's messages and move
 * the run, fenced on its revision), on the same DynamoDB Local as the runtime. The least any durable runtime
 * on DynamoDB must do per turn; `npm run bench:turn` prints the runtime's time per turn against it.
 *
 * Beside it, the ledger floor (ledgerFloorLoop): the writes the runtime's own invariants require of a turn that
 * calls a tool, done bare: the call recorded pending with the assistant message before it runs
 * (pending-before-dispatch), the tool's own write, then the call settled once with its result, each transaction
 * also moving the run (fenced) and appending its audit entry (audit in the same transaction).
 */
import type Anthropic from '@anthropic-ai/sdk';
import { GetCommand, TransactWriteCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import type { DynamoStore } from '../shared/store/index.ts';

/** One model call of the conversation: its answer appended as the assistant's message, and the calls it makes. */
async function modelTurn(client: Anthropic, messages: Anthropic.MessageParam[]) {
  const response = await client.messages.create({ model: 'claude-sonnet-5-5', max_tokens: 1024, messages });
  messages.push({ role: 'assistant', content: response.content });
  return { response, uses: response.content.filter((block) => block.type === 'tool_use') };
}

/** The user message answering every call in memory. */
const answerOf = (uses: readonly Anthropic.ToolUseBlock[]): Anthropic.MessageParam => ({
  role: 'user',
  content: uses.map((use) => ({ type: 'tool_result' as const, tool_use_id: use.id, content: 'ok' })),
});

/** Runs `runs` conversations of up to `turns` turns; tools are answered in memory. Returns the time taken. */
export async function floorLoop(
  store: DynamoStore,
  client: Anthropic,
  { runs, turns }: { runs: number; turns: number },
): Promise<{ ms: number; turns: number }> {
  const { doc, table } = store.ctx;
  let count = 0;
  const start = performance.now();
  for (let i = 0; i < runs; i++) {
    const runKey = { pk: `FLOOR#${crypto.randomUUID()}`, sk: 'RUN' };
    const messages: Anthropic.MessageParam[] = [{ role: 'user', content: 'go' }];
    for (let turn = 0; turn < turns; turn++) {
      count++;
      const loaded = await doc.send(new GetCommand({ TableName: table, Key: runKey, ConsistentRead: true }));
      const rev = Number(loaded.Item?.rev ?? 0);
      const { response, uses } = await modelTurn(client, messages);
      const answer = answerOf(uses);
      await doc.send(
        new TransactWriteCommand({
          TransactItems: [
            {
              Put: {
                TableName: table,
                Item: { ...runKey, rev: rev + 1, turn: turn + 1 },
                ConditionExpression: 'attribute_not_exists(pk) OR rev = :rev',
                ExpressionAttributeValues: { ':rev': rev },
              },
            },
            {
              Put: {
                TableName: table,
                Item: {
                  pk: runKey.pk,
                  sk: `TURN#${turn}`,
                  assistant: response.content,
                  answer: answer.content,
                },
                ConditionExpression: 'attribute_not_exists(pk)',
              },
            },
          ],
        }),
      );
      if (uses.length === 0) break;
      messages.push(answer);
    }
  }
  return { ms: performance.now() - start, turns: count };
}

/**
 * The bare SDK: the same conversation, tools answered in memory, nothing persisted. Returns its turns (up to
 * `turns`).
 */
export async function bareLoop(client: Anthropic, turns: number): Promise<number> {
  const messages: Anthropic.MessageParam[] = [{ role: 'user', content: 'go' }];
  for (let turn = 1; turn <= turns; turn++) {
    const { uses } = await modelTurn(client, messages);
    if (uses.length === 0) return turn;
    messages.push(answerOf(uses));
  }
  return turns;
}

/**
 * The ledger floor: per turn one strongly consistent GetItem of the run and, for a turn whose answer calls
 * tools, a TransactWriteItems of the run (fenced on its revision), an audit entry, the assistant message and a
 * pending ledger row per call; each call's own write (an UpdateItem appending to a note, as notes_append does);
 * and a TransactWriteItems of the run, an audit entry, the results message and each row settled (conditional
 * on it being pending). A final turn writes the run, an audit entry and its message in one transaction. No
 * hashing, no schemas, no budget: only the requests. Returns the time taken.
 */
export async function ledgerFloorLoop(
  store: DynamoStore,
  client: Anthropic,
  { runs, turns }: { runs: number; turns: number },
): Promise<{ ms: number; turns: number }> {
  const { doc, table } = store.ctx;
  let count = 0;
  const start = performance.now();
  for (let i = 0; i < runs; i++) {
    const pk = `LEDGERFLOOR#${crypto.randomUUID()}`;
    const runKey = { pk, sk: 'RUN' };
    const messages: Anthropic.MessageParam[] = [{ role: 'user', content: 'go' }];
    let audit = 0;
    let message = 0;
    const commit = async (rev: number, turn: number, items: Record<string, unknown>[]) =>
      doc.send(
        new TransactWriteCommand({
          TransactItems: [
            {
              Put: {
                TableName: table,
                Item: { ...runKey, rev: rev + 1, turn },
                ConditionExpression: 'attribute_not_exists(pk) OR rev = :rev',
                ExpressionAttributeValues: { ':rev': rev },
              },
            },
            {
              Put: {
                TableName: table,
                Item: { pk, sk: `AUD#${String(audit++).padStart(8, '0')}`, turn, at: Date.now() },
                ConditionExpression: 'attribute_not_exists(pk)',
              },
            },
            ...items,
          ],
        }),
      );
    for (let turn = 0; turn < turns; turn++) {
      count++;
      const loaded = await doc.send(new GetCommand({ TableName: table, Key: runKey, ConsistentRead: true }));
      let rev = Number(loaded.Item?.rev ?? 0);
      const { response, uses } = await modelTurn(client, messages);
      const assistant = {
        Put: {
          TableName: table,
          Item: {
            pk,
            sk: `MSG#${String(message++).padStart(6, '0')}`,
            role: 'assistant',
            content: response.content,
          },
          ConditionExpression: 'attribute_not_exists(pk)',
        },
      };
      if (uses.length === 0) {
        await commit(rev, turn + 1, [assistant]);
        break;
      }
      await commit(rev++, turn, [
        assistant,
        ...uses.map((use) => ({
          Put: {
            TableName: table,
            Item: { pk, sk: `TOOL#${use.id}`, status: 'pending', name: use.name, input: use.input },
            ConditionExpression: 'attribute_not_exists(pk)',
          },
        })),
      ]);
      for (const use of uses) {
        await doc.send(
          new UpdateCommand({
            TableName: table,
            Key: { pk, sk: 'NOTE#log' },
            UpdateExpression: 'SET #lines = list_append(if_not_exists(#lines, :empty), :line)',
            ExpressionAttributeNames: { '#lines': 'lines' },
            ExpressionAttributeValues: { ':line': [JSON.stringify(use.input)], ':empty': [] },
          }),
        );
      }
      const answer = answerOf(uses);
      await commit(rev, turn + 1, [
        {
          Put: {
            TableName: table,
            Item: {
              pk,
              sk: `MSG#${String(message++).padStart(6, '0')}`,
              role: 'user',
              content: answer.content,
            },
            ConditionExpression: 'attribute_not_exists(pk)',
          },
        },
        ...uses.map((use) => ({
          Put: {
            TableName: table,
            Item: { pk, sk: `TOOL#${use.id}`, status: 'settled', name: use.name, result: 'ok' },
            ConditionExpression: '#status = :pending',
            ExpressionAttributeNames: { '#status': 'status' },
            ExpressionAttributeValues: { ':pending': 'pending' },
          },
        })),
      ]);
      messages.push(answer);
    }
  }
  return { ms: performance.now() - start, turns: count };
}
