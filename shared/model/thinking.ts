/**
 * How a `ThinkingLevel` becomes request parameters. Two API styles exist:
 * - `budget` (manual extended thinking, `{type:'enabled', budget_tokens}`): the only style of the
 *   Claude 4.0–4.5 generation (e.g. `claude-haiku-4-5`, `claude-sonnet-4-5`, `claude-opus-4-1`);
 * - `adaptive` (`{type:'adaptive'}` + `output_config.effort`): Claude 4.6 and later. Claude Opus 4.7+,
 *   the 5.x models and later reject `budget_tokens` with a 400, so adaptive is the default for any
 *   model id not recognised as budget-style.
 * `off` sends no `thinking` field at all: the model's default applies (no thinking on the budget-style
 * models; several 5.x models think by default and some cannot turn it off, and sending
 * `{type:'disabled'}` to those is a 400).
 */
import {
  effectiveMaxTokens,
  MIN_ANSWER_TOKENS,
  THINKING_BUDGETS,
  type ThinkingStyle,
  thinkingStyleFor,
} from '../core/output-tokens.ts';
import type { ThinkingLevel } from '../core/ports.ts';

// The style table and the max_tokens rule live in the core, so the budget reserves what is sent here.
export { MIN_ANSWER_TOKENS, THINKING_BUDGETS, type ThinkingStyle, thinkingStyleFor };

/** The request fields that a thinking level sets. */
export type ThinkingParams = {
  thinking?: { type: 'enabled'; budget_tokens: number } | { type: 'adaptive' };
  output_config?: { effort: 'low' | 'medium' | 'high' };
  max_tokens: number;
};

/**
 * Request fields for a thinking level. With the budget style, `max_tokens` must exceed the budget
 * (thinking counts toward it): when it does not leave `MIN_ANSWER_TOKENS` above the budget, it is
 * raised to `budget + MIN_ANSWER_TOKENS`; otherwise `maxTokens` is sent unchanged.
 */
export function thinkingParams(
  level: ThinkingLevel,
  maxTokens: number,
  style: ThinkingStyle,
): ThinkingParams {
  if (level === 'off') return { max_tokens: maxTokens };
  if (style === 'adaptive') {
    return { thinking: { type: 'adaptive' }, output_config: { effort: level }, max_tokens: maxTokens };
  }
  return {
    thinking: { type: 'enabled', budget_tokens: THINKING_BUDGETS[level] },
    max_tokens: effectiveMaxTokens(level, maxTokens, style),
  };
}
