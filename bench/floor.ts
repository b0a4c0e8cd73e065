/**
 * The durable floor of a turn: the bare Anthropic SDK loop against the scripted server plus, per turn, one
 * strongly consistent GetItem (load the run) and one TransactWriteItems (store the turn's messages and move
 * the run, fenced on its revision), on the same DynamoDB Local as the runtime. The least any durable runtime
 * on DynamoDB must do per turn; `npm run bench:turn` prints the runtime's time per turn against it.
 */
import type Anthropic from '@anthropic-ai/sdk';
import { GetCommand, TransactWriteCommand } from '@aws-sdk/lib-dynamodb';
import type { DynamoStore } from '../shared/store/index.ts';

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
      const response = await client.messages.create({
        model: 'claude-sonnet-5-5',
        max_tokens: 1024,
        messages,
      });
      messages.push({ role: 'assistant', content: response.content });
      const uses = response.content.filter((block) => block.type === 'tool_use');
      const answer: Anthropic.MessageParam = {
        role: 'user',
        content: uses.map((use) => ({ type: 'tool_result' as const, tool_use_id: use.id, content: 'ok' })),
      };
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
    const response = await client.messages.create({
      model: 'claude-sonnet-5-5',
      max_tokens: 1024,
      messages,
    });
    messages.push({ role: 'assistant', content: response.content });
    const uses = response.content.filter((block) => block.type === 'tool_use');
    if (uses.length === 0) return turn;
    messages.push({
      role: 'user',
      content: uses.map((use) => ({ type: 'tool_result' as const, tool_use_id: use.id, content: 'ok' })),
    });
  }
  return turns;
}
