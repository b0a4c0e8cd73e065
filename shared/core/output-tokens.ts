/**
 * How many output tokens a model request can cost: the `max_tokens` the model adapter actually sends.
 * Thinking counts toward `max_tokens`, and with the fixed-budget thinking style the adapter raises
 * `max_tokens` above the workflow's `maxTokens` so the budget fits; a reservation must cover that raise.
 * One pure function serves both the adapter (shared/model/thinking.ts) and the budget, so they cannot drift.
 */
import { bareModelId } from './model-id.ts';
import type { ModelRequest, ThinkingLevel } from './ports.ts';

/**
 * The two thinking styles of the API: `budget` (`{type:'enabled', budget_tokens}`), the only style of the
 * Claude 3.7 and 4.0–4.5 generation; `adaptive` (`{type:'adaptive'}` + effort) for 4.6 and later.
 */
export type ThinkingStyle = 'budget' | 'adaptive';

/** Thinking budgets (tokens) of the budget style. */
export const THINKING_BUDGETS = { low: 1024, medium: 4096, high: 16_384 } as const;

/** Tokens left for the answer above the thinking budget when `max_tokens` has to be raised. */
export const MIN_ANSWER_TOKENS = 1024;

// claude-3-7-sonnet…, claude-{opus,sonnet,haiku}-4[-0..5][-YYYYMMDD]; 4-6 and later are adaptive.
const BUDGET_STYLE_MODEL =
  /^claude-(?:3-7-sonnet(?:-\d{8}|-latest)?|(?:opus|sonnet|haiku)-4(?:-[0-5])?(?:-\d{8})?)$/;

/** The thinking style a model id takes; Bedrock ids by their Anthropic name. */
export function thinkingStyleFor(model: string): ThinkingStyle {
  return BUDGET_STYLE_MODEL.test(bareModelId(model)) ? 'budget' : 'adaptive';
}

/**
 * The `max_tokens` sent for a thinking level. With the budget style it must exceed the thinking budget by
 * `MIN_ANSWER_TOKENS`, so it is raised to `budget + MIN_ANSWER_TOKENS` when it does not; otherwise (thinking
 * off, or adaptive thinking, which spends inside `max_tokens`) it is `maxTokens` unchanged.
 */
export function effectiveMaxTokens(level: ThinkingLevel, maxTokens: number, style: ThinkingStyle): number {
  if (level === 'off' || style === 'adaptive') return maxTokens;
  return Math.max(maxTokens, THINKING_BUDGETS[level] + MIN_ANSWER_TOKENS);
}

/** The output tokens a request may bill, with the adapter's default (per model id) thinking style. */
export const maxOutputTokensOf = (request: ModelRequest): number =>
  effectiveMaxTokens(request.thinking, request.maxTokens, thinkingStyleFor(request.model));
