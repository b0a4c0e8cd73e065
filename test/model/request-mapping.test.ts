import { describe, expect, it } from 'vitest';
import type { ThinkingLevel } from '../../shared/core/ports.ts';
import { cacheScopeText } from '../../shared/model/anthropic-mapping.ts';
import { thinkingStyleFor } from '../../shared/model/thinking.ts';
import { lookupUser, modelOn, modelRequest, scripted, sendEmail, userText } from './helpers.ts';

type WireBody = {
  model: string;
  max_tokens: number;
  system?: { type: string; text: string; cache_control?: unknown }[];
  tools?: { name: string; description: string; input_schema: unknown; cache_control?: unknown }[];
  messages: { role: string; content: { type: string; cache_control?: unknown }[] }[];
  thinking?: unknown;
  output_config?: unknown;
};

/** Sends one request through the adapter and returns the body the server received. */
async function recordedBody(
  overrides: Parameters<typeof modelRequest>[0],
  streaming = true,
): Promise<WireBody> {
  const server = await scripted({ turns: [{ text: 'ok' }, { text: 'ok' }, { text: 'ok' }] });
  await modelOn(server, { streaming }).call(modelRequest(overrides));
  return server.requests[0]?.body as WireBody;
}

function breakpoints(body: WireBody): number {
  const blocks = [...(body.tools ?? []), ...(body.system ?? []), ...body.messages.flatMap((m) => m.content)];
  return blocks.filter((block) => block.cache_control !== undefined).length;
}

describe('Anthropic request mapping', () => {
  it('offers exactly the given tools, with their description and input schema', async () => {
    // Act
    const body = await recordedBody({ tools: [lookupUser, sendEmail] });

    // Assess
    expect(
      body.tools?.map(({ name, description, input_schema }) => ({ name, description, input_schema })),
    ).toEqual([
      { name: 'lookup_user', description: lookupUser.description, input_schema: lookupUser.inputSchema },
      { name: 'send_email', description: sendEmail.description, input_schema: sendEmail.inputSchema },
    ]);
  });

  it('omits tools when none are given', async () => {
    // Act
    const body = await recordedBody({ tools: [] });

    // Assess
    expect(body.tools).toBeUndefined();
  });

  it('puts cache breakpoints on the system prompt, the end of the previous turn and the last message', async () => {
    // Act
    const body = await recordedBody({
      tools: [lookupUser, sendEmail],
      owner: 'owner-a',
      messages: [
        userText('first'),
        { role: 'assistant', content: [{ type: 'tool_use', id: 't1', name: 'lookup_user', input: {} }] },
        {
          role: 'user',
          content: [
            { type: 'tool_result', tool_use_id: 't1', content: 'Ada', is_error: false },
            { type: 'text', text: 'continue' },
          ],
        },
      ],
    });

    // Assess
    const ephemeral = { type: 'ephemeral' };
    // None after the tools: that prefix is the same for every owner (the owner's scope opens the system prompt).
    expect(body.tools?.map((tool) => tool.cache_control)).toEqual([undefined, undefined]);
    expect(body.system).toEqual([
      { type: 'text', text: cacheScopeText('owner-a') },
      { type: 'text', text: 'You are a test assistant.', cache_control: ephemeral },
    ]);
    expect(body.messages.at(-1)?.content.map((block) => block.cache_control)).toEqual([undefined, ephemeral]);
    // The previous turn's request ended with the first message: its breakpoint is read back exactly.
    expect(body.messages[0]?.content.map((block) => block.cache_control)).toEqual([ephemeral]);
    expect(body.messages[1]?.content.map((block) => block.cache_control)).toEqual([undefined]);
    expect(breakpoints(body)).toBe(3);
  });

  it('never marks a thinking block as a breakpoint (the API rejects that)', async () => {
    // Act
    const body = await recordedBody({
      messages: [
        userText('go'),
        {
          role: 'assistant',
          content: [
            { type: 'text', text: 'partial' },
            { type: 'thinking', thinking: 't', signature: 's' },
          ],
        },
      ],
    });

    // Assess: the last cacheable block is the text before the thinking block.
    expect(body.messages.at(-1)?.content.map((block) => block.cache_control)).toEqual([
      { type: 'ephemeral' },
      undefined,
    ]);
  });

  it('leaves out the blank text blocks of a stored assistant message (stored before answers were cleaned), which the API refuses', async () => {
    // Act
    const body = await recordedBody({
      messages: [
        userText('go'),
        {
          role: 'assistant',
          content: [
            { type: 'text', text: ' \n' },
            { type: 'tool_use', id: 'toolu_1', name: 'lookup_user', input: { id: 'u1' } },
          ],
        },
        {
          role: 'user',
          content: [{ type: 'tool_result', tool_use_id: 'toolu_1', content: 'found' }],
        },
      ],
    });

    // Assess: the server (which refuses blank text as the API does) answered, and got the tool_use alone.
    expect(body.messages[1]?.content.map((block) => block.type)).toEqual(['tool_use']);
  });

  it.each([
    ['off', 1024, undefined, 1024],
    ['low', 1024, { type: 'enabled', budget_tokens: 1024 }, 2048],
    ['medium', 1024, { type: 'enabled', budget_tokens: 4096 }, 5120],
    ['high', 1024, { type: 'enabled', budget_tokens: 16_384 }, 17_408],
    ['high', 32_000, { type: 'enabled', budget_tokens: 16_384 }, 32_000],
  ] as const)(
    'budget-style model, thinking %s with maxTokens %d → thinking %j and max_tokens %d',
    async (level, maxTokens, thinking, sent) => {
      // Act
      const body = await recordedBody({
        model: 'claude-haiku-4-5',
        thinking: level as ThinkingLevel,
        maxTokens,
      });

      // Assess
      expect(body.thinking).toEqual(thinking);
      expect(body.output_config).toBeUndefined();
      expect(body.max_tokens).toBe(sent);
    },
  );

  it.each([
    ['off', undefined, undefined],
    ['low', { type: 'adaptive' }, { effort: 'low' }],
    ['medium', { type: 'adaptive' }, { effort: 'medium' }],
    ['high', { type: 'adaptive' }, { effort: 'high' }],
  ] as const)(
    'adaptive-style model, thinking %s → thinking %j and output_config %j',
    async (level, thinking, outputConfig) => {
      // Act
      const body = await recordedBody({
        model: 'claude-sonnet-5-5',
        thinking: level as ThinkingLevel,
        maxTokens: 2000,
      });

      // Assess
      expect(body.thinking).toEqual(thinking);
      expect(body.output_config).toEqual(outputConfig);
      expect(body.max_tokens).toBe(2000);
    },
  );

  it.each([
    ['claude-haiku-4-5', 'budget'],
    ['claude-haiku-4-5-20251001', 'budget'],
    ['claude-sonnet-4-5', 'budget'],
    ['claude-sonnet-4-20250514', 'budget'],
    ['claude-opus-4-1', 'budget'],
    ['claude-3-7-sonnet-20250219', 'budget'],
    ['claude-opus-4-6', 'adaptive'],
    ['claude-sonnet-4-6', 'adaptive'],
    ['claude-opus-4-8', 'adaptive'],
    ['claude-sonnet-5-5', 'adaptive'],
    ['claude-some-future-model', 'adaptive'],
    ['anthropic.claude-sonnet-4-5-20250929-v1:0', 'budget'],
    ['us.anthropic.claude-haiku-4-5-20251001-v1:0', 'budget'],
    ['global.anthropic.claude-opus-4-1-20250805-v1:0', 'budget'],
    ['eu.anthropic.claude-3-7-sonnet-20250219-v1:0', 'budget'],
    ['global.anthropic.claude-opus-4-6-v1', 'adaptive'],
  ] as const)('takes %s as %s-style thinking', (model, style) => {
    // Act / Assess
    expect(thinkingStyleFor(model)).toBe(style);
  });

  it('sends a max_tokens the SDK would refuse without streaming, when not streaming', async () => {
    // Act: 200k tokens is far beyond the SDK's 10-minute non-streaming estimate.
    const body = await recordedBody({ maxTokens: 200_000 }, false);

    // Assess
    expect(body.max_tokens).toBe(200_000);
  });

  it.each([
    ['empty', ''],
    ['whitespace-only', ' \n\t'],
  ])(
    'omits an %s system prompt (it says nothing, and a blank block cannot carry cache_control)',
    async (_kind, system) => {
      // Act
      const body = await recordedBody({ system });

      // Assess
      expect(body.system).toBeUndefined();
    },
  );

  it("opens the system prompt with the owner's scope block, which carries the breakpoint when the prompt is empty", async () => {
    // Act
    const [a, b] = [await recordedBody({ system: '', owner: 'owner-a' }), cacheScopeText('owner-b')];

    // Assess: a hash, not the owner; one per owner.
    expect(a.system).toEqual([
      { type: 'text', text: cacheScopeText('owner-a'), cache_control: { type: 'ephemeral' } },
    ]);
    expect(a.system?.[0]?.text).toMatch(/^cache-scope: [0-9a-f]{32}$/);
    expect(b).not.toBe(cacheScopeText('owner-a'));
  });
});
