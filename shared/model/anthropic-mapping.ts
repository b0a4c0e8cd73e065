/**
 * Pure mapping between the core's `ModelRequest`/`ModelResponse` and the Messages API wire types.
 */
import { createHash } from 'node:crypto';
import type Anthropic from '@anthropic-ai/sdk';
import type { MessageCreateParamsBase } from '@anthropic-ai/sdk/resources/messages/messages';
import type {
  ContentBlock,
  Message,
  ModelRequest,
  ModelResponse,
  ModelStopReason,
  ToolSpec,
} from '../core/ports.ts';
import { ModelResponseError } from './errors.ts';
import { type ThinkingStyle, thinkingParams } from './thinking.ts';

type CreateParams = MessageCreateParamsBase;
type BlockParam = Anthropic.ContentBlockParam;

const EPHEMERAL = { type: 'ephemeral' } as const;

function toBlockParam(block: ContentBlock): BlockParam {
  switch (block.type) {
    case 'text':
      return { type: 'text', text: block.text };
    case 'tool_use':
      return { type: 'tool_use', id: block.id, name: block.name, input: block.input };
    case 'tool_result':
      return {
        type: 'tool_result',
        tool_use_id: block.tool_use_id,
        content: block.content,
        ...(block.is_error === undefined ? {} : { is_error: block.is_error }),
      };
    // Thinking blocks go back exactly as received: the API verifies their signature.
    case 'thinking':
      return { type: 'thinking', thinking: block.thinking, signature: block.signature };
    case 'redacted_thinking':
      return { type: 'redacted_thinking', data: block.data };
  }
}

function toTool(tool: ToolSpec): Anthropic.Tool {
  return {
    name: tool.name,
    description: tool.description,
    input_schema: tool.inputSchema as Anthropic.Tool.InputSchema,
  };
}

/**
 * The block that opens the system prompt of an owner's requests: a hash of the owner (the model never sees the
 * owner itself), so every cached prefix includes it. All owners call with the deployment's one API key, and a
 * cache read on a run's first call would otherwise tell an owner that another ran the same tools and system
 * prompt in the last 5 minutes.
 */
export function cacheScopeText(owner: string): string {
  return `cache-scope: ${createHash('sha256').update(`wf-prompt-cache\0${owner}`).digest('hex').slice(0, 32)}`;
}

/** Whether a system block is an owner's scope block (the scripted server's checks skip it). */
export const isCacheScopeText = (text: string): boolean => /^cache-scope: [0-9a-f]{32}$/.test(text);

/**
 * The system blocks: the owner's scope block, then the prompt with a breakpoint (on the scope block when the
 * prompt is empty or blank: an empty block cannot carry `cache_control`). Without a scope, the prompt alone, as before.
 */
function systemBlocks(request: ModelRequest): Anthropic.TextBlockParam[] {
  const blocks: Anthropic.TextBlockParam[] = [];
  if (request.owner !== undefined) blocks.push({ type: 'text', text: cacheScopeText(request.owner) });
  // A blank prompt says nothing, and the API refuses blank text blocks in messages
  // (docs/scripted-model.md, "request rules"); whether it also refuses a blank system block is not documented.
  if (request.system.trim() !== '') blocks.push({ type: 'text', text: request.system });
  const last = blocks.length - 1;
  return blocks.map((block, i) => (i === last ? { ...block, cache_control: EPHEMERAL } : block));
}

/** The message with its last cacheable block marked, or `undefined` when it has none. */
function withBreakpoint(message: Anthropic.MessageParam): Anthropic.MessageParam | undefined {
  if (typeof message.content === 'string') return undefined;
  const blocks = [...message.content];
  for (let i = blocks.length - 1; i >= 0; i--) {
    const block = blocks[i]!;
    // Thinking blocks cannot carry `cache_control`, and neither can an empty text block.
    if (block.type === 'thinking' || block.type === 'redacted_thinking') continue;
    if (block.type === 'text' && block.text === '') continue;
    blocks[i] = { ...block, cache_control: EPHEMERAL } as BlockParam;
    return { ...message, content: blocks } as Anthropic.MessageParam;
  }
  return undefined;
}

/**
 * Transcript breakpoints: the last message, so the next turn reads the whole transcript, and the message that
 * ended the previous turn's request (two back), so this turn reads what that one wrote however many blocks
 * were appended since — the API looks back only 20 blocks from a breakpoint for an earlier entry
 * (https://platform.claude.com/docs/en/build-with-claude/prompt-caching). Only stable content sits before
 * either: stored messages, never a clock or a counter (test/core/cache-prefix.test.ts).
 */
function withTranscriptBreakpoints(messages: Anthropic.MessageParam[]): Anthropic.MessageParam[] {
  const marked = [...messages];
  for (const index of [messages.length - 3, messages.length - 1]) {
    const message = messages[index];
    const withMark = message && withBreakpoint(message);
    if (withMark) marked[index] = withMark;
  }
  return marked;
}

/**
 * A stored message's blocks as they can be sent: an assistant message stored before `fromMessage` dropped blank
 * text blocks (below) may hold one, which the API refuses in a request; it is left out here too, so such a run
 * goes on. A message of nothing but blank text keeps its blocks: dropping them all would leave a message the
 * API refuses as empty.
 */
function sendable(message: Message): ContentBlock[] {
  if (message.role !== 'assistant') return message.content;
  const kept = message.content.filter((block) => block.type !== 'text' || block.text.trim() !== '');
  return kept.length === 0 ? message.content : kept;
}

/**
 * The Messages API body for a request: exactly `request.tools`, prompt-cache breakpoints on the system prompt,
 * the end of the previous turn's request and the last message block (the prefix is cached in the order
 * tools → system → messages), and the thinking fields. No breakpoint after the tools: that prefix holds
 * nothing owner-specific (the owner's scope block opens the system prompt), so its entry would be shared by
 * every owner with the same tools; within a run the system breakpoint covers the tools anyway.
 */
export function toCreateParams(request: ModelRequest, style: ThinkingStyle): CreateParams {
  const messages = request.messages.map(
    (message: Message) =>
      ({
        role: message.role,
        content: sendable(message).map(toBlockParam),
      }) as Anthropic.MessageParam,
  );
  const { thinking, output_config, max_tokens } = thinkingParams(request.thinking, request.maxTokens, style);
  const system = systemBlocks(request);
  return {
    model: request.model,
    max_tokens,
    // An empty text block cannot carry cache_control (and an empty system prompt says nothing).
    ...(system.length === 0 ? {} : { system }),
    messages: withTranscriptBreakpoints(messages),
    ...(request.tools.length === 0 ? {} : { tools: request.tools.map(toTool) }),
    ...(thinking ? { thinking } : {}),
    ...(output_config ? { output_config } : {}),
  };
}

const STOP_REASONS: Record<string, ModelStopReason> = {
  end_turn: 'end_turn',
  tool_use: 'tool_use',
  max_tokens: 'max_tokens',
  refusal: 'refusal',
  stop_sequence: 'stop_sequence',
  pause_turn: 'pause_turn',
  // The output was cut off because the context window filled up: like max_tokens, a truncated turn.
  model_context_window_exceeded: 'max_tokens',
};

function fromBlock(block: Anthropic.ContentBlock): ContentBlock {
  switch (block.type) {
    case 'text':
      return { type: 'text', text: block.text };
    case 'tool_use':
      return { type: 'tool_use', id: block.id, name: block.name, input: block.input };
    case 'thinking':
      return { type: 'thinking', thinking: block.thinking, signature: block.signature };
    case 'redacted_thinking':
      return { type: 'redacted_thinking', data: block.data };
    default:
      // Server tools are never offered, so their blocks cannot be stored and replayed faithfully.
      throw new ModelResponseError(`unsupported content block type in model response: ${block.type}`);
  }
}

/**
 * Whether a response block carries something to send back. The API can answer with an empty or whitespace-only
 * text block (often beside a tool_use) but refuses one in a request ("text content blocks must be non-empty",
 * "… must contain non-whitespace text": https://github.com/anthropics/anthropic-sdk-python/issues/461,
 * https://github.com/anthropics/claude-code/issues/23440), so the conversation's next call would fail on every
 * retry. Such a block says nothing; it is dropped here, before the core stores the answer.
 */
const worthKeeping = (block: Anthropic.ContentBlock): boolean =>
  block.type !== 'text' || block.text.trim() !== '';

/**
 * The core's view of an API message: known blocks (blank text dropped, `worthKeeping`), a known stop reason,
 * usage with nulls as 0.
 */
export function fromMessage(message: Anthropic.Message): ModelResponse {
  const stopReason = message.stop_reason === null ? undefined : STOP_REASONS[message.stop_reason];
  if (!stopReason) {
    throw new ModelResponseError(`unsupported stop_reason in model response: ${String(message.stop_reason)}`);
  }
  const usage = message.usage;
  return {
    model: message.model,
    content: message.content.filter(worthKeeping).map(fromBlock),
    stopReason,
    usage: {
      inputTokens: usage.input_tokens ?? 0,
      outputTokens: usage.output_tokens ?? 0,
      cacheCreationInputTokens: usage.cache_creation_input_tokens ?? 0,
      cacheReadInputTokens: usage.cache_read_input_tokens ?? 0,
    },
  };
}
