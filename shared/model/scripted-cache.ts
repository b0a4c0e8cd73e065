/**
 * The scripted server's prompt cache, accounted as Anthropic documents it
 * (https://platform.claude.com/docs/en/build-with-claude/prompt-caching, read 2026-12-01):
 * - a `cache_control` breakpoint caches the prefix up to and including its block, in the order tools →
 *   system → messages; at most 4 breakpoints per request (more is a 400 `invalid_request_error`);
 * - a request reads the longest cached prefix found at a breakpoint or up to 20 blocks before one;
 * - a prefix shorter than the model's minimum cacheable length is not cached (no error, nothing written);
 * - an entry lives 5 minutes, refreshed each time it is read (measured on the server's clock);
 * - usage splits the input: `cache_read_input_tokens` (the prefix read), `cache_creation_input_tokens`
 *   (from there up to the last cacheable breakpoint) and `input_tokens` (the rest, after it).
 */
import { bareModelId } from '../core/model-id.ts';
import { type CacheableRequest, prefixBlocks } from './scripted-prefix.ts';

export const MAX_BREAKPOINTS = 4;
export const CACHE_TTL_MS = 5 * 60_000;
/** How far before a breakpoint the API looks for an earlier cache entry. */
export const LOOKBACK_BLOCKS = 20;

/**
 * The minimum cacheable prompt length of a model, from the doc's table: 4096 tokens for Claude Opus 4.6,
 * Opus 4.5 and Haiku 4.5; 2048 for Haiku 3.5 and Haiku 3; 1024 for Sonnet 4.6, 4.5, 4, 3.7 and Opus 4.1, 4.
 * A model the table does not list takes its class's value: 2048 for Haiku-class, 1024 for Sonnet/Opus-class.
 */
export function minimumCacheableTokens(model: string): number {
  const name = bareModelId(model);
  if (/^claude-(opus-4-[56]|haiku-4-5)\b/.test(name)) return 4096;
  return /haiku/.test(name) ? 2048 : 1024;
}

export type CacheUsage = {
  input_tokens: number;
  cache_creation_input_tokens: number;
  cache_read_input_tokens: number;
};

/** What a request reads and writes; `commit` applies it once the request is served. */
export type CacheAccount = { usage: CacheUsage; commit(): void };

/** A request with more breakpoints than the API allows, answered 400 as the API does. */
export class TooManyBreakpointsError extends Error {
  constructor(found: number) {
    super(`A maximum of ${MAX_BREAKPOINTS} blocks with cache_control may be provided. Found ${found}.`);
    this.name = 'TooManyBreakpointsError';
  }
}

/** One server's cache: prefix key → expiry (ms on the server's clock). */
export class PromptCache {
  readonly #entries = new Map<string, number>();
  readonly #now: () => number;

  constructor(now: () => number) {
    this.#now = now;
  }

  /** Accounts a request against the cache (throws `TooManyBreakpointsError`); nothing changes until `commit`. */
  account(request: CacheableRequest): CacheAccount {
    const blocks = prefixBlocks(request);
    const found = blocks.reduce((sum, block) => sum + block.breakpoints, 0);
    if (found > MAX_BREAKPOINTS) throw new TooManyBreakpointsError(found);
    const now = this.#now();
    let running = 0;
    const cumulative = blocks.map((block) => (running += block.tokens));
    const total = cumulative.at(-1) ?? 0;
    const breakpoints = blocks.flatMap((block, i) => (block.breakpoints > 0 ? [i] : []));
    const live = (i: number) => (this.#entries.get(blocks[i]!.key) ?? 0) > now;
    let readAt = -1;
    for (const b of breakpoints) {
      for (let i = b; i >= Math.max(0, b - LOOKBACK_BLOCKS + 1) && i > readAt; i--) {
        if (live(i)) {
          readAt = i;
          break;
        }
      }
    }
    const read = readAt >= 0 ? cumulative[readAt]! : 0;
    const minimum = minimumCacheableTokens(request.model ?? '');
    const cacheable = breakpoints.filter((b) => cumulative[b]! >= minimum);
    const lastWrite = cacheable.filter((b) => b > readAt).at(-1);
    const creation = lastWrite === undefined ? 0 : cumulative[lastWrite]! - read;
    return {
      usage: {
        input_tokens: total - read - creation,
        cache_creation_input_tokens: creation,
        cache_read_input_tokens: read,
      },
      commit: () => {
        const expires = this.#now() + CACHE_TTL_MS;
        for (const i of readAt >= 0 ? [readAt, ...cacheable] : cacheable)
          this.#entries.set(blocks[i]!.key, expires);
        this.#prune();
      },
    };
  }

  #prune() {
    if (this.#entries.size < 10_000) return;
    const now = this.#now();
    for (const [key, expires] of this.#entries) if (expires <= now) this.#entries.delete(key);
  }
}
