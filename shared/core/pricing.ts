/**
 * Model prices in USD per million tokens, and the cost arithmetic of budgets.
 * The table is overridable per deployment (EngineConfig.prices); docs/budgets.md lists the defaults.
 */

import { utf8Length } from './byte-caps.ts';
import { UnknownModelPriceError } from './errors.ts';
import { bareModelId } from './model-id.ts';
import type { ModelRequest, Usage } from './ports.ts';

export type ModelPrice = { input: number; output: number; cacheWrite: number; cacheRead: number };
export type PriceTable = Record<string, ModelPrice>;

/**
 * Public list prices (USD / MTok, 5-minute cache writes), from Anthropic's pricing page as of 2026-11.
 * Haiku 5.5 is tiered by prompt length; the table holds its upper tier so a budget never under-counts.
 * Cache prices follow the documented multipliers of the base input price
 * (https://platform.claude.com/docs/en/build-with-claude/prompt-caching#pricing): a 5-minute cache write costs
 * `CACHE_WRITE_5M_MULTIPLIER` × input, a cache read `CACHE_READ_MULTIPLIER` × input (test/core/pricing.test.ts).
 */
export const CACHE_WRITE_5M_MULTIPLIER = 1.25;
export const CACHE_READ_MULTIPLIER = 0.1;

export const DEFAULT_PRICES: PriceTable = {
  'claude-fable-5-1': { input: 10, output: 50, cacheWrite: 12.5, cacheRead: 1 },
  'claude-fable-5': { input: 10, output: 50, cacheWrite: 12.5, cacheRead: 1 },
  'claude-opus-5-5': { input: 4, output: 20, cacheWrite: 5, cacheRead: 0.4 },
  'claude-opus-5': { input: 5, output: 25, cacheWrite: 6.25, cacheRead: 0.5 },
  'claude-opus-4-8': { input: 5, output: 25, cacheWrite: 6.25, cacheRead: 0.5 },
  'claude-opus-4-7': { input: 5, output: 25, cacheWrite: 6.25, cacheRead: 0.5 },
  'claude-opus-4-6': { input: 5, output: 25, cacheWrite: 6.25, cacheRead: 0.5 },
  'claude-opus-4-5': { input: 5, output: 25, cacheWrite: 6.25, cacheRead: 0.5 },
  'claude-opus-4-1': { input: 15, output: 75, cacheWrite: 18.75, cacheRead: 1.5 },
  'claude-opus-4': { input: 15, output: 75, cacheWrite: 18.75, cacheRead: 1.5 },
  'claude-sonnet-5-5': { input: 2, output: 10, cacheWrite: 2.5, cacheRead: 0.2 },
  'claude-sonnet-5': { input: 2, output: 10, cacheWrite: 2.5, cacheRead: 0.2 },
  'claude-sonnet-4-6': { input: 3, output: 15, cacheWrite: 3.75, cacheRead: 0.3 },
  'claude-sonnet-4-5': { input: 3, output: 15, cacheWrite: 3.75, cacheRead: 0.3 },
  'claude-sonnet-4': { input: 3, output: 15, cacheWrite: 3.75, cacheRead: 0.3 },
  'claude-haiku-5-5': { input: 0.5, output: 2.5, cacheWrite: 0.625, cacheRead: 0.05 },
  'claude-haiku-4-5': { input: 1, output: 5, cacheWrite: 1.25, cacheRead: 0.1 },
  'claude-3-5-haiku': { input: 0.8, output: 4, cacheWrite: 1, cacheRead: 0.08 },
};

/**
 * The price of a model id: the key of its bare name (see `bareModelId`), so an Anthropic API id, a dated
 * snapshot, a Bedrock model id and a Bedrock inference profile of one model all cost the same. A name the
 * table does not hold is an `UnknownModelPriceError`: a budget that cannot be priced is not enforced.
 */
export function priceFor(model: string, prices: PriceTable): ModelPrice {
  // Own keys only: an id such as `constructor` must not find Object.prototype's members.
  const key = [model, bareModelId(model).replace(/-latest$/, '')].find((name) => Object.hasOwn(prices, name));
  if (key === undefined) throw new UnknownModelPriceError(model);
  return prices[key]!;
}

/** Rounds to a micro-dollar, so sums of many small costs stay exact in storage. */
export const roundUsd = (usd: number): number => Math.round(usd * 1e6) / 1e6;

export function costOf(usage: Usage, price: ModelPrice): number {
  return roundUsd(
    (usage.inputTokens * price.input +
      usage.outputTokens * price.output +
      usage.cacheCreationInputTokens * price.cacheWrite +
      usage.cacheReadInputTokens * price.cacheRead) /
      1e6,
  );
}

/**
 * Input tokens the API adds to a request that has tools: "When you use tools, we also automatically include a
 * special system prompt for the model which enables tool use" (https://docs.anthropic.com/en/docs/tool-use-pricing-and-tokens).
 * Its size is per model and tool choice, 159–530 tokens in the table on that page (Claude 4 models: 346 with
 * `auto`, the choice the runtime sends). It is not in the request's bytes, so the bound adds it; 1,024 leaves room
 * for a model whose figure the table does not list yet. Bedrock runs the same models with the same prompt.
 */
export const TOOL_USE_SYSTEM_PROMPT_TOKENS = 1024;

/**
 * Bytes the model adapter adds in front of the system prompt of an owner's request: the prompt-cache scope
 * block, `cache-scope: ` and 32 hex digits (model/anthropic-mapping.ts `cacheScopeText`; a test pins both).
 */
export const CACHE_SCOPE_BYTES = 45;

/**
 * An upper bound of what one call can cost: every request byte counted as a token at the dearest input
 * rate (a token is never shorter than one byte of UTF-8), the tokens the API and the adapter add to the request
 * (the tool-use system prompt, the owner's cache-scope block), plus max_tokens of output. Reserving this before
 * the call is what keeps a run under its ceiling.
 */
export function reservationFor(request: ModelRequest, price: ModelPrice): number {
  const inputTokens = requestInputTokensBound(request);
  const inputRate = Math.max(price.input, price.cacheWrite);
  return roundUsd((inputTokens * inputRate + request.maxTokens * price.output) / 1e6);
}

/** The most input tokens `request` can be billed for (reservationFor). */
export function requestInputTokensBound(request: ModelRequest): number {
  const bytes = jsonBytes({ system: request.system, messages: request.messages, tools: request.tools }, 3);
  const toolPrompt = request.tools.length > 0 ? TOOL_USE_SYSTEM_PROMPT_TOKENS : 0;
  const scope = request.owner === undefined ? 0 : CACHE_SCOPE_BYTES;
  return bytes + toolPrompt + scope;
}

/**
 * UTF-8 bytes of `JSON.stringify` of frozen values, per container. A frozen value cannot change, so its size
 * stays what it was: the transcript cache's messages and the generated tool schemas are frozen, and each is
 * serialized once here instead of at every reservation (two per turn: this call's and the next turn's ahead,
 * each over the whole transcript; issue #16).
 */
const frozenBytes = new WeakMap<object, number>();

/**
 * The UTF-8 length of `JSON.stringify(value)`, exactly, without serializing again a frozen part measured before.
 * Plain objects and arrays are walked `depth` levels down to find frozen parts; below that (or for anything
 * else) the value is serialized as `JSON.stringify` would.
 */
export function jsonBytes(value: unknown, depth = 0): number {
  if (typeof value !== 'object' || value === null) return utf8Length(JSON.stringify(value) ?? '');
  const known = frozenBytes.get(value);
  if (known !== undefined) return known;
  if (isDeepFrozen(value)) {
    const bytes = utf8Length(JSON.stringify(value));
    frozenBytes.set(value, bytes);
    return bytes;
  }
  if (depth <= 0 || !isPlainData(value)) return utf8Length(JSON.stringify(value));
  if (Array.isArray(value)) {
    // `[`, `]`, a comma between elements; undefined, functions and symbols are `null` in an array.
    let bytes = 2 + Math.max(0, value.length - 1);
    for (const element of value) bytes += skipped(element) ? 4 : jsonBytes(element, depth - 1);
    return bytes;
  }
  let bytes = 2;
  let members = 0;
  for (const [key, member] of Object.entries(value)) {
    if (skipped(member)) continue;
    bytes += utf8Length(JSON.stringify(key)) + 1 + jsonBytes(member, depth - 1);
    members += 1;
  }
  return bytes + Math.max(0, members - 1);
}

/**
 * Plain data frozen all the way down (what the transcript cache and the tool schemas hold): it can never
 * change, so its size can be kept. Anything else (a frozen object with a mutable part, a class instance) is not.
 */
function isDeepFrozen(value: object): boolean {
  if (frozenBytes.has(value)) return true;
  if (!Object.isFrozen(value) || !isPlainData(value)) return false;
  for (const member of Object.values(value)) {
    if (typeof member === 'object' && member !== null && !isDeepFrozen(member)) return false;
  }
  return true;
}

/** What `JSON.stringify` leaves out of an object (and writes as `null` in an array). */
const skipped = (value: unknown) =>
  value === undefined || typeof value === 'function' || typeof value === 'symbol';

/** An array or a plain object without `toJSON`: `JSON.stringify` writes exactly its own enumerable members. */
function isPlainData(value: object): boolean {
  if (Array.isArray(value)) return Object.getPrototypeOf(value) === Array.prototype;
  const proto = Object.getPrototypeOf(value);
  return (
    (proto === Object.prototype || proto === null) &&
    typeof (value as { toJSON?: unknown }).toJSON !== 'function'
  );
}
