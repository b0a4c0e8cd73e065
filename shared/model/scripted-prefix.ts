/**
 * A Messages-API request as the prompt cache sees it: one flat list of blocks in the order Anthropic caches
 * them — tools, then system, then messages — each with its token estimate and whether it carries a
 * `cache_control` breakpoint (https://platform.claude.com/docs/en/build-with-claude/prompt-caching).
 * The server's cache accounting and the tests that check the runtime's breakpoint placement both use it.
 */
import { createHash } from 'node:crypto';
import { estimateTokens } from './scripted-wire.ts';

/** The parts of a request body the cache reads; blocks are kept as sent (minus `cache_control`). */
export type CacheableRequest = {
  model?: string;
  tools?: unknown[];
  system?: string | unknown[];
  messages?: { role?: string; content?: string | unknown[] }[];
};

export type PrefixBlock = {
  /** `tools`, `system` or `messages`: the three cached segments, in cache order. */
  segment: 'tools' | 'system' | 'messages';
  /** The block as the cache compares it: its position's role and message index, no `cache_control`. */
  json: string;
  tokens: number;
  /** `cache_control` marks on this block (a tool_result may carry them on nested content too). */
  breakpoints: number;
  /** Hash of the prefix up to and including this block (and the model: caches are per model). */
  key: string;
};

const isRecord = (value: unknown): value is Record<string, unknown> =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

/** A block without its `cache_control` marks (also inside a tool_result's content), and how many it had. */
function stripped(block: unknown): [unknown, number] {
  if (!isRecord(block)) return [block, 0];
  const { cache_control, ...rest } = block;
  let marks = cache_control === undefined ? 0 : 1;
  if (Array.isArray(rest.content)) {
    rest.content = rest.content.map((inner) => {
      const [clean, count] = stripped(inner);
      marks += count;
      return clean;
    });
  }
  return [rest, marks];
}

const textBlock = (text: string) => ({ type: 'text', text });

/**
 * The request's blocks in cache order. Token counts are a deterministic estimate: one token per 4 characters
 * of each block's JSON (the real tokenizer is not public); a request's total is the sum over its blocks.
 */
export function prefixBlocks(request: CacheableRequest): PrefixBlock[] {
  const raw: { segment: PrefixBlock['segment']; where: unknown[]; block: unknown }[] = [];
  for (const tool of request.tools ?? []) raw.push({ segment: 'tools', where: ['tool'], block: tool });
  const system = typeof request.system === 'string' ? [textBlock(request.system)] : (request.system ?? []);
  for (const block of system) raw.push({ segment: 'system', where: ['system'], block });
  (request.messages ?? []).forEach((message, index) => {
    const content =
      typeof message.content === 'string' ? [textBlock(message.content)] : (message.content ?? []);
    for (const block of content) raw.push({ segment: 'messages', where: [message.role, index], block });
  });
  let key = createHash('sha256')
    .update(`model\0${request.model ?? ''}`)
    .digest('hex');
  return raw.map(({ segment, where, block }) => {
    const [clean, breakpoints] = stripped(block);
    const json = JSON.stringify([...where, clean]);
    key = createHash('sha256').update(`${key}\0${json}`).digest('hex');
    return { segment, json, tokens: estimateTokens(clean), breakpoints, key };
  });
}

/** The request's input tokens by the same estimate (what `count_tokens` answers). */
export const requestTokens = (request: CacheableRequest): number =>
  prefixBlocks(request).reduce((sum, block) => sum + block.tokens, 0);
