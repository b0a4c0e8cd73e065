import { readFile } from 'node:fs/promises';
import { describe, expect, it } from 'vitest';
import type { Message } from '../../shared/core/ports.ts';
import { fixtureJsonSchema, ScriptedFixtureSchema } from '../../shared/model/scripted-fixture.ts';
import { lookupUser, modelOn, modelRequest, scripted, userText } from './helpers.ts';

const readJson = async (path: string) => JSON.parse(await readFile(new URL(path, import.meta.url), 'utf8'));

describe('Fixture schema', () => {
  it('is committed in docs/fixture.schema.json as generated (regenerate: node shared/model/scripted-schema-cli.ts)', async () => {
    // Act
    const committed = await readJson('../../docs/fixture.schema.json');

    // Assess
    expect(committed).toEqual(fixtureJsonSchema());
  });

  it('accepts the example fixture', async () => {
    // Act
    const parsed = ScriptedFixtureSchema.safeParse(
      await readJson('../../examples/fixtures/hello.fixture.json'),
    );

    // Assess
    expect(parsed.error).toBeUndefined();
  });

  it('runs the example fixture through the real SDK, expectations included', async () => {
    // Prepare
    const server = await scripted(await readJson('../../examples/fixtures/hello.fixture.json'));
    const model = modelOn(server);
    const messages: Message[] = [userText('Say hello to user u_42')];

    // Act
    const first = await model.call(modelRequest({ messages, tools: [lookupUser] }));
    const call = first.content.find((block) => block.type === 'tool_use');
    messages.push({ role: 'assistant', content: first.content });
    messages.push({
      role: 'user',
      content: [{ type: 'tool_result', tool_use_id: call?.id ?? '', content: '{"name":"Ada"}' }],
    });
    const second = await model.call(modelRequest({ messages, tools: [lookupUser] }));

    // Assess
    expect(call).toEqual({
      type: 'tool_use',
      id: 'toolu_hello_0_1',
      name: 'lookup_user',
      input: { id: 'u_42' },
    });
    expect(second.content).toEqual([{ type: 'text', text: 'Hello, Ada!' }]);
    expect(second.stopReason).toBe('end_turn');
    expect(server.failures).toEqual([]);
  });
});
