import type Anthropic from '@anthropic-ai/sdk';
import { describe, expect, it } from 'vitest';
import { fromMessage } from '../../shared/model/anthropic-mapping.ts';
import { ModelResponseError } from '../../shared/model/errors.ts';

function apiMessage(overrides: Record<string, unknown>): Anthropic.Message {
  return {
    id: 'msg_1',
    type: 'message',
    role: 'assistant',
    model: 'claude-test',
    content: [{ type: 'text', text: 'hi', citations: null }],
    stop_reason: 'end_turn',
    stop_sequence: null,
    usage: {
      input_tokens: 3,
      output_tokens: 4,
      cache_creation_input_tokens: null,
      cache_read_input_tokens: null,
    },
    ...overrides,
  } as unknown as Anthropic.Message;
}

describe('fromMessage', () => {
  it('drops empty and whitespace-only text blocks, keeping every other block', () => {
    // Act
    const response = fromMessage(
      apiMessage({
        content: [
          { type: 'text', text: '', citations: null },
          { type: 'text', text: ' \n\t', citations: null },
          { type: 'text', text: ' kept ', citations: null },
          { type: 'tool_use', id: 'toolu_1', name: 'lookup', input: {} },
        ],
        stop_reason: 'tool_use',
      }),
    );

    // Assess
    expect(response.content).toEqual([
      { type: 'text', text: ' kept ' },
      { type: 'tool_use', id: 'toolu_1', name: 'lookup', input: {} },
    ]);
  });

  it('reports null cache counts as 0', () => {
    // Act
    const response = fromMessage(apiMessage({}));

    // Assess
    expect(response.usage).toEqual({
      inputTokens: 3,
      outputTokens: 4,
      cacheCreationInputTokens: 0,
      cacheReadInputTokens: 0,
    });
  });

  it.each([
    [{ stop_reason: 'something_new' }, /unsupported stop_reason in model response: something_new/],
    [{ stop_reason: null }, /unsupported stop_reason in model response: null/],
    [
      { content: [{ type: 'server_tool_use', id: 's', name: 'web_search', input: {} }] },
      /unsupported content block type/,
    ],
  ])('rejects %j with a non-retryable ModelResponseError', (overrides, message) => {
    // Act
    const act = () => fromMessage(apiMessage(overrides));

    // Assess
    expect(act).toThrow(ModelResponseError);
    expect(act).toThrow(message);
  });
});
