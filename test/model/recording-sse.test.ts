/** The recording proxy folds a Messages-API stream back into its message: text, tool input, thinking, usage. */
import { describe, expect, it } from 'vitest';
import { fixtureOfTurns } from '../../shared/model/recording-proxy.ts';
import { messageOfSse } from '../../shared/model/recording-sse.ts';

const sse = (events: Record<string, unknown>[]) =>
  events.map((event) => `event: ${event.type}\ndata: ${JSON.stringify(event)}\n\n`).join('');

const STREAM = sse([
  {
    type: 'message_start',
    message: { id: 'msg_1', role: 'assistant', content: [], usage: { input_tokens: 12 } },
  },
  { type: 'content_block_start', index: 0, content_block: { type: 'thinking', thinking: '' } },
  { type: 'content_block_delta', index: 0, delta: { type: 'thinking_delta', thinking: 'Let me ' } },
  { type: 'content_block_delta', index: 0, delta: { type: 'thinking_delta', thinking: 'think.' } },
  { type: 'content_block_delta', index: 0, delta: { type: 'signature_delta', signature: 'sig' } },
  { type: 'content_block_stop', index: 0 },
  { type: 'content_block_start', index: 1, content_block: { type: 'text', text: '', citations: null } },
  { type: 'content_block_delta', index: 1, delta: { type: 'text_delta', text: 'Saving.' } },
  { type: 'content_block_stop', index: 1 },
  {
    type: 'content_block_start',
    index: 2,
    content_block: { type: 'tool_use', id: 'toolu_1', name: 'notes_put', input: {} },
  },
  {
    type: 'content_block_delta',
    index: 2,
    delta: { type: 'input_json_delta', partial_json: '{"name":"a",' },
  },
  {
    type: 'content_block_delta',
    index: 2,
    delta: { type: 'input_json_delta', partial_json: '"value":"b"}' },
  },
  { type: 'content_block_stop', index: 2 },
  { type: 'message_delta', delta: { stop_reason: 'tool_use' }, usage: { output_tokens: 30 } },
  { type: 'message_stop' },
]);

describe('messageOfSse', () => {
  it('rebuilds each block from its deltas, with the stop reason and usage', () => {
    const message = messageOfSse(STREAM);

    expect(message.content).toEqual([
      { type: 'thinking', thinking: 'Let me think.', signature: 'sig' },
      { type: 'text', text: 'Saving.', citations: null },
      { type: 'tool_use', id: 'toolu_1', name: 'notes_put', input: { name: 'a', value: 'b' } },
    ]);
    expect(message.stop_reason).toBe('tool_use');
    expect(message.usage).toEqual({ input_tokens: 12, output_tokens: 30 });
  });

  it('an error event fails the recording', () => {
    expect(() => messageOfSse(sse([{ type: 'error', error: { type: 'overloaded_error' } }]))).toThrow(
      /error event/,
    );
  });

  it('a fixture turn keeps only the fields the scripted server serves, and the request fields checked', () => {
    const fixture = fixtureOfTurns('w', [
      {
        request: {
          model: 'claude-sonnet-5-5',
          system: [{ type: 'text', text: 'Be brief.' }],
          tools: [{ name: 'notes_put' }],
          messages: [{ role: 'user', content: 'Do it.' }],
        },
        message: messageOfSse(STREAM),
      },
    ]);

    expect(fixture.turns[0]).toEqual({
      expect: {
        recorded: {
          model: 'claude-sonnet-5-5',
          system: 'Be brief.',
          tools: ['notes_put'],
          firstUser: 'Do it.',
        },
      },
      response: {
        content: [
          { type: 'thinking', thinking: 'Let me think.', signature: 'sig' },
          { type: 'text', text: 'Saving.' },
          { type: 'tool_use', id: 'toolu_1', name: 'notes_put', input: { name: 'a', value: 'b' } },
        ],
        stop_reason: 'tool_use',
        usage: { input_tokens: 12, output_tokens: 30 },
      },
    });
  });
});
