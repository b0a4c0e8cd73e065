/**
 * Model prices in USD per million tokens, and the cost arithmetic of budgets.
 * The table is overridable per deployment (EngineConfig.prices); docs/budgets.md lists the defaults.
 */

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
  const bytes = new TextEncoder().encode(
    JSON.stringify({ system: request.system, messages: request.messages, tools: request.tools }),
  ).length;
  const toolPrompt = request.tools.length > 0 ? TOOL_USE_SYSTEM_PROMPT_TOKENS : 0;
  const scope = request.owner === undefined ? 0 : CACHE_SCOPE_BYTES;
  return bytes + toolPrompt + scope;
}
