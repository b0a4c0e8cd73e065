import { describe, expect, it } from 'vitest';
import type { Message, ModelRequest, ModelResponse } from '../../shared/core/ports.ts';
import {
  lookupUser,
  modelIdFor,
  modelOn,
  modelRequest,
  PROVIDERS,
  scripted,
  streamed,
  userText,
} from './helpers.ts';

const toolLoopFixture = {
  name: 'loop',
  turns: [
    {
      response: {
        content: [
          { type: 'text' as const, text: 'Looking up.' },
          { type: 'tool_use' as const, name: 'lookup_user', input: { id: 'u_42' } },
        ],
        usage: {
          input_tokens: 100,
          output_tokens: 20,
          cache_creation_input_tokens: 90,
          cache_read_input_tokens: 0,
        },
      },
    },
    {
      expect: { toolResults: [{ toolName: 'lookup_user', contains: 'Ada' }] },
      response: {
        content: [{ type: 'text' as const, text: 'Hello, Ada!' }],
        usage: {
          input_tokens: 130,
          output_tokens: 5,
          cache_creation_input_tokens: 30,
          cache_read_input_tokens: 90,
        },
      },
    },
  ],
};

describe.each(PROVIDERS)('Model port through the %s SDK', (provider) => {
  const model = modelIdFor(provider);
  const request = (overrides: Partial<ModelRequest> = {}) => modelRequest({ model, ...overrides });

  it.each([{ streaming: true }, { streaming: false }])(
    'runs a tool loop (tool_use → tool_result → end_turn) and maps content and usage (streaming: $streaming)',
    async ({ streaming }) => {
      // Prepare
      const server = await scripted(toolLoopFixture);
      const port = modelOn(server, { streaming }, provider);
      const messages: Message[] = [userText('Say hello to u_42')];

      // Act
      const first = await port.call(request({ messages, tools: [lookupUser] }));
      messages.push({ role: 'assistant', content: first.content });
      messages.push({
        role: 'user',
        content: [{ type: 'tool_result', tool_use_id: 'toolu_loop_0_1', content: '{"name":"Ada"}' }],
      });
      const second = await port.call(request({ messages, tools: [lookupUser] }));

      // Assess
      expect(first).toEqual<ModelResponse>({
        model,
        content: [
          { type: 'text', text: 'Looking up.' },
          { type: 'tool_use', id: 'toolu_loop_0_1', name: 'lookup_user', input: { id: 'u_42' } },
        ],
        stopReason: 'tool_use',
        usage: { inputTokens: 100, outputTokens: 20, cacheCreationInputTokens: 90, cacheReadInputTokens: 0 },
      });
      expect(second).toEqual<ModelResponse>({
        model,
        content: [{ type: 'text', text: 'Hello, Ada!' }],
        stopReason: 'end_turn',
        usage: { inputTokens: 130, outputTokens: 5, cacheCreationInputTokens: 30, cacheReadInputTokens: 90 },
      });
      expect(server.failures).toEqual([]);
      expect(server.requests.map(streamed)).toEqual([streaming, streaming]);
    },
  );

  it.each([
    ['end_turn', 'end_turn'],
    ['tool_use', 'tool_use'],
    ['max_tokens', 'max_tokens'],
    ['refusal', 'refusal'],
    ['stop_sequence', 'stop_sequence'],
    ['pause_turn', 'pause_turn'],
    ['model_context_window_exceeded', 'max_tokens'],
  ] as const)('maps stop_reason %s to %s', async (wire, mapped) => {
    // Prepare
    const server = await scripted({
      turns: [{ response: { content: [{ type: 'text', text: 'x' }], stop_reason: wire } }],
    });

    // Act
    const response = await modelOn(server, {}, provider).call(request());

    // Assess
    expect(response.stopReason).toBe(mapped);
  });

  it('returns thinking blocks and replays them verbatim in the next request', async () => {
    // Prepare
    const server = await scripted({
      turns: [
        {
          response: {
            content: [
              { type: 'thinking', thinking: 'The user wants u_42.', signature: 'sig-abc' },
              { type: 'redacted_thinking', data: 'opaque==' },
              { type: 'tool_use', id: 'toolu_given', name: 'lookup_user', input: { id: 'u_42' } },
            ],
          },
        },
        { text: 'Done.' },
      ],
    });
    const port = modelOn(server, {}, provider);
    const messages: Message[] = [userText('Go')];

    // Act
    const first = await port.call(request({ messages, tools: [lookupUser], thinking: 'low' }));
    messages.push({ role: 'assistant', content: first.content });
    messages.push({
      role: 'user',
      content: [{ type: 'tool_result', tool_use_id: 'toolu_given', content: 'Ada' }],
    });
    await port.call(request({ messages, tools: [lookupUser], thinking: 'low' }));

    // Assess
    expect(first.content.slice(0, 2)).toEqual([
      { type: 'thinking', thinking: 'The user wants u_42.', signature: 'sig-abc' },
      { type: 'redacted_thinking', data: 'opaque==' },
    ]);
    const body = server.requests[1]?.body as { messages: { content: unknown[] }[] };
    expect(body.messages[1]?.content.slice(0, 2)).toEqual([
      { type: 'thinking', thinking: 'The user wants u_42.', signature: 'sig-abc' },
      { type: 'redacted_thinking', data: 'opaque==' },
    ]);
  });

  it.each([{ streaming: true }, { streaming: false }])(
    'drops the blank text blocks of an answer, which the API returns but refuses back (streaming: $streaming)',
    async ({ streaming }) => {
      // Prepare
      const server = await scripted({
        name: 'blank',
        turns: [
          {
            response: {
              content: [
                { type: 'text', text: '' },
                { type: 'text', text: ' \n\n' },
                { type: 'tool_use', name: 'lookup_user', input: { id: 'u_42' } },
              ],
            },
          },
          { text: 'Hello, Ada!' },
        ],
      });
      const port = modelOn(server, { streaming }, provider);
      const messages: Message[] = [userText('Say hello to u_42')];

      // Act
      const first = await port.call(request({ messages, tools: [lookupUser] }));
      messages.push({ role: 'assistant', content: first.content });
      messages.push({
        role: 'user',
        content: [{ type: 'tool_result', tool_use_id: 'toolu_blank_0_2', content: '{"name":"Ada"}' }],
      });
      const second = await port.call(request({ messages, tools: [lookupUser] }));

      // Assess
      expect(first.content).toEqual([
        { type: 'tool_use', id: 'toolu_blank_0_2', name: 'lookup_user', input: { id: 'u_42' } },
      ]);
      expect(second.content).toEqual([{ type: 'text', text: 'Hello, Ada!' }]);
      expect(server.failures).toEqual([]);
    },
  );

  it('sends the defaultHeaders, so a header can select the fixture', async () => {
    // Prepare
    const server = await scripted([
      { name: 'a', turns: [{ text: 'from a' }] },
      { name: 'b', turns: [{ text: 'from b' }] },
    ]);

    // Act
    const response = await modelOn(server, { defaultHeaders: { 'x-scripted-fixture': 'b' } }, provider).call(
      request(),
    );

    // Assess
    expect(response.content).toEqual([{ type: 'text', text: 'from b' }]);
  });
});
