/**
 * A model's tool_use input DynamoDB cannot hold as a map: an empty field name ("Empty attribute name"), a number
 * below 1e-130 ("Number underflow"), an integer past 2^53 (the document client refuses it)
 * (https://docs.aws.amazon.com/amazondynamodb/latest/developerguide/Constraints.html#limits-data-types). Its
 * message is stored with the input as JSON text (shared/store/message-items.ts) and read back as it was written;
 * before, the write of the message failed and the turn with it, on every retry.
 */
import { describe, expect, it } from 'vitest';
import { driveRun, engineDeps, ScriptedModel, text, toolUse } from '../support/engine.ts';
import { minimalWorkflow, seedRun, seedWorkflow, testStore } from '../support/store.ts';

const store = testStore();

describe('a tool_use input DynamoDB cannot hold as a map', () => {
  it.each([
    ['an empty field name', { name: 'n', value: 'v', '': 1 }, 'Unrecognized key'],
    ['a number below 1e-130', { name: 'n', value: 'v', rate: 1e-200 }, 'Unrecognized key'],
    // Refused before its schema is consulted, in every mode (shared/core/inexact-number.ts).
    ['an integer past 2^53', { name: 'n', value: 'v', order: 2 ** 64 }, 'input.order was read as'],
  ])('with %s is stored and read back as the model wrote it; the run goes on', async (_, input, why) => {
    const { version } = await seedWorkflow(store, minimalWorkflow());
    const run = await seedRun(store, version);
    const model = new ScriptedModel([
      { content: [text('Noting.'), toolUse('toolu_1', 'notes_put', input)], stopReason: 'tool_use' },
      { content: [text('Done.')], stopReason: 'end_turn' },
    ]);
    await driveRun(engineDeps(store, model), run.runId);
    const read = await store.getRunWithMessages(run.runId);
    // notes_put takes no such field: the call is refused as any invalid input is, and the run ends `denied`.
    expect(read.run).toMatchObject({
      status: 'denied',
      degraded: { refused: [{ toolUseId: 'toolu_1', reason: expect.stringContaining(why) }] },
    });
    const asked = read.messages.find((message) => message.role === 'assistant');
    expect(asked?.content).toContainEqual({ type: 'tool_use', id: 'toolu_1', name: 'notes_put', input });
    // The model saw its own call again as it made it.
    const second = model.requests[1]?.messages ?? [];
    expect(second.flatMap((message) => message.content)).toContainEqual(
      expect.objectContaining({ type: 'tool_use', id: 'toolu_1', input }),
    );
  });
});
