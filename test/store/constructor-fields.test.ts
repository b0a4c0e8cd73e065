/**
 * A field named `constructor` in a stored value. The document client's marshaller types a value by
 * `value.constructor.name`: an own `constructor` field made it refuse the item or store it as something else
 * (`{"constructor": {"name": "String"}}` became the string "[object Object]"). Such fields come from outside the
 * runtime, e.g. a model's tool call after reading an injected page, so the store keeps them as they are
 * (shared/store/own-constructor-keys.ts), on DynamoDB Local.
 */
import { GetCommand, PutCommand } from '@aws-sdk/lib-dynamodb';
import { describe, expect, it } from 'vitest';
import { withConstructorFieldsAsMaps } from '../../shared/store/own-constructor-keys.ts';
import { driveRun, engineDeps, ScriptedModel, text, toolUse } from '../support/engine.ts';
import { minimalWorkflow, seedRun, seedWorkflow, testStore } from '../support/store.ts';

const store = testStore();

const awkward = {
  constructor: 'x',
  nested: { constructor: { name: 'String' } },
  list: [{ constructor: { name: 'Set' } }, { constructor: { name: 'Map' }, size: 2 }, 'plain'],
  plain: { a: 1 },
};

describe('a stored value with a `constructor` field', () => {
  it('is written and read back unchanged', async () => {
    const key = { pk: 'TEST#constructor', sk: `ITEM#${Date.now()}` };
    await store.ctx.doc.send(
      new PutCommand({ TableName: store.ctx.table, Item: { ...key, value: awkward } }),
    );
    const read = await store.ctx.doc.send(new GetCommand({ TableName: store.ctx.table, Key: key }));
    expect(read.Item?.value).toEqual(awkward);
    expect(Object.hasOwn(read.Item?.value as object, 'constructor')).toBe(true);
  });

  it("in a model's tool call: the run goes on and its transcript keeps the call as the model made it", async () => {
    const { version } = await seedWorkflow(store, minimalWorkflow());
    const run = await seedRun(store, version);
    const model = new ScriptedModel([
      {
        content: [
          toolUse('n1', 'notes_append', { name: 'log', line: 'one', constructor: { name: 'String' } }),
        ],
        stopReason: 'tool_use',
      },
      { content: [text('done')], stopReason: 'end_turn' },
    ]);
    await driveRun(engineDeps(store, model), run.runId);
    expect((await store.getRun(run.runId))?.status).not.toBe('failed');
    const call = (await store.listMessages(run.runId))
      .flatMap((message) => message.content)
      .find((block) => block.type === 'tool_use');
    expect(call).toMatchObject({ input: { constructor: { name: 'String' } } });
  });

  it('leaves values without one untouched: the same references, nothing copied', () => {
    const value = { a: { b: [1, { c: 'd' }] } };
    expect(withConstructorFieldsAsMaps(value)).toBe(value);
    const mixed = { keep: { c: 1 }, odd: { constructor: 1 } };
    const rewritten = withConstructorFieldsAsMaps(mixed) as Record<string, unknown>;
    expect(rewritten.keep).toBe(mixed.keep);
    expect(rewritten.odd).toBeInstanceOf(Map);
    expect(mixed.odd).toEqual({ constructor: 1 });
  });
});
