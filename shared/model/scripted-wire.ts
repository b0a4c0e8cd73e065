/**
 * Messages-API wire shapes produced by the scripted server: the message object, its SSE event
 * sequence, and error bodies, as the real API sends them.
 */
import type { CacheUsage } from './scripted-cache.ts';
import type { ScriptedResponseBlock, ScriptedTurn } from './scripted-fixture.ts';

/** Default error type per HTTP status, as the API uses them. */
const ERROR_TYPES: Record<number, string> = {
  400: 'invalid_request_error',
  401: 'authentication_error',
  402: 'billing_error',
  403: 'permission_error',
  404: 'not_found_error',
  413: 'request_too_large',
  429: 'rate_limit_error',
  500: 'api_error',
  504: 'timeout_error',
  529: 'overloaded_error',
};

export function errorTypeFor(status: number): string {
  return ERROR_TYPES[status] ?? (status >= 500 ? 'api_error' : 'invalid_request_error');
}

export function errorBody(type: string, message: string, requestId: string) {
  return { type: 'error', error: { type, message }, request_id: requestId };
}

/** A rough, deterministic token estimate: one token per 4 characters of JSON. */
export function estimateTokens(value: unknown): number {
  return Math.max(1, Math.ceil(JSON.stringify(value ?? '').length / 4));
}

type WireContent = Record<string, unknown> & { type: string };

function wireBlock(block: ScriptedResponseBlock, id: string): WireContent {
  switch (block.type) {
    case 'text':
      return { type: 'text', text: block.text, citations: null };
    case 'tool_use':
      return {
        type: 'tool_use',
        id: block.id ?? id,
        name: block.name,
        input: block.input,
        caller: { type: 'direct' },
      };
    case 'thinking':
      return { type: 'thinking', thinking: block.thinking, signature: block.signature };
    case 'redacted_thinking':
      return { type: 'redacted_thinking', data: block.data };
  }
}

/** `cache`: the request's input as the prompt cache accounted it (scripted-cache.ts). */
export type BuildContext = { fixture: string; turn: number; model: string; cache: CacheUsage };

/**
 * The input usage reported: the cache's accounting, unless the fixture states an input count — then exactly
 * what it states, with a missing input count taken as the whole request and missing cache counts as 0.
 */
function inputUsageOf(turn: ScriptedTurn, cache: CacheUsage): CacheUsage {
  const stated = turn.response?.usage;
  const states =
    stated?.input_tokens !== undefined ||
    stated?.cache_creation_input_tokens !== undefined ||
    stated?.cache_read_input_tokens !== undefined;
  if (!stated || !states) return cache;
  const whole = cache.input_tokens + cache.cache_creation_input_tokens + cache.cache_read_input_tokens;
  return {
    input_tokens: stated.input_tokens ?? whole,
    cache_creation_input_tokens: stated.cache_creation_input_tokens ?? 0,
    cache_read_input_tokens: stated.cache_read_input_tokens ?? 0,
  };
}

/** The complete `message` object of a served turn. */
export function buildMessage(turn: ScriptedTurn, context: BuildContext) {
  const { fixture, turn: index, model } = context;
  const blocks: ScriptedResponseBlock[] = turn.response?.content ?? [{ type: 'text', text: turn.text ?? '' }];
  const content = blocks.map((block, i) => wireBlock(block, `toolu_${fixture}_${index}_${i}`));
  const input = inputUsageOf(turn, context.cache);
  const cacheCreation = input.cache_creation_input_tokens;
  return {
    id: `msg_scripted_${fixture}_${index}`,
    type: 'message' as const,
    role: 'assistant' as const,
    model,
    content,
    stop_reason:
      turn.response?.stop_reason ??
      (content.some((block) => block.type === 'tool_use') ? 'tool_use' : 'end_turn'),
    stop_sequence: null,
    stop_details: null,
    container: null,
    usage: {
      input_tokens: input.input_tokens,
      cache_creation_input_tokens: cacheCreation,
      cache_read_input_tokens: input.cache_read_input_tokens,
      cache_creation: { ephemeral_5m_input_tokens: cacheCreation, ephemeral_1h_input_tokens: 0 },
      output_tokens: turn.response?.usage?.output_tokens ?? estimateTokens(content),
      service_tier: 'standard',
    },
  };
}

export type WireMessage = ReturnType<typeof buildMessage>;

/** One Messages-API stream event: its `type` is also its SSE event name. */
export type StreamEvent = { type: string } & Record<string, unknown>;

/** One SSE frame of a stream event. */
export function sse(event: StreamEvent): string {
  return `event: ${event.type}\ndata: ${JSON.stringify(event)}\n\n`;
}

function blockEvents(block: WireContent, index: number): StreamEvent[] {
  const start = (content_block: unknown) => ({ type: 'content_block_start', index, content_block });
  const delta = (d: unknown) => ({ type: 'content_block_delta', index, delta: d });
  const stop = { type: 'content_block_stop', index };
  switch (block.type) {
    case 'text':
      return [start({ ...block, text: '' }), delta({ type: 'text_delta', text: block.text }), stop];
    case 'tool_use':
      return [
        start({ ...block, input: {} }),
        delta({ type: 'input_json_delta', partial_json: JSON.stringify(block.input) }),
        stop,
      ];
    case 'thinking':
      return [
        start({ type: 'thinking', thinking: '', signature: '' }),
        delta({ type: 'thinking_delta', thinking: block.thinking }),
        delta({ type: 'signature_delta', signature: block.signature }),
        stop,
      ];
    default:
      return [start(block), stop];
  }
}

/** The `message_start` event: the message with no content yet, as the API opens a stream. */
export function messageStartEvent(message: WireMessage): StreamEvent {
  const { usage } = message;
  return {
    type: 'message_start',
    message: {
      ...message,
      content: [],
      stop_reason: null,
      stop_sequence: null,
      usage: { ...usage, output_tokens: 1 },
    },
  };
}

/** The full stream event sequence of a served message. */
export function streamEvents(message: WireMessage): StreamEvent[] {
  const { usage } = message;
  return [
    messageStartEvent(message),
    { type: 'ping' },
    ...message.content.flatMap((block, index) => blockEvents(block, index)),
    {
      type: 'message_delta',
      delta: { stop_reason: message.stop_reason, stop_sequence: null, stop_details: null },
      usage: {
        input_tokens: usage.input_tokens,
        cache_creation_input_tokens: usage.cache_creation_input_tokens,
        cache_read_input_tokens: usage.cache_read_input_tokens,
        output_tokens: usage.output_tokens,
      },
    },
    { type: 'message_stop' },
  ];
}
