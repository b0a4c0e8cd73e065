/** Budget test support: a model that spends everything a request allows, and a table of a ceiling's use. */
import { maxOutputTokensOf } from '../../shared/core/output-tokens.ts';
import type { ModelPort, ModelRequest, ModelResponse } from '../../shared/core/ports.ts';
import {
  DEFAULT_PRICES,
  priceFor,
  requestInputTokensBound,
  reservationFor,
  roundUsd,
} from '../../shared/core/pricing.ts';
import type { Run } from '../../shared/schemas/run.ts';

/** The request's input tokens as `reservationFor` bounds them (its bytes, the tool-use prompt, the scope block). */
export const requestBytes = (request: ModelRequest): number => requestInputTokensBound(request);

/**
 * The dearest answer a request can get: every request byte a cache-write token (and the tokens the API adds), and thinking plus answer
 * filling the `max_tokens` the adapter sends (the default per-model thinking style). Its cost is the
 * largest any real answer to the request can have.
 */
export class WorstCaseModel implements ModelPort {
  calls = 0;
  async call(request: ModelRequest): Promise<ModelResponse> {
    this.calls++;
    return {
      model: request.model,
      content: [
        { type: 'thinking', thinking: 'considering', signature: 'sig' },
        { type: 'text', text: 'ok' },
      ],
      stopReason: 'end_turn',
      usage: {
        inputTokens: 0,
        outputTokens: maxOutputTokensOf(request),
        cacheCreationInputTokens: requestBytes(request),
        cacheReadInputTokens: 0,
      },
    };
  }
}

/** What a one-message request of `minimalWorkflow` reserves on `model` (thinking high, maxTokens 1024). */
export function worstCaseUsd(request: ModelRequest): number {
  return reservationFor(
    { ...request, maxTokens: maxOutputTokensOf(request) },
    priceFor(request.model, DEFAULT_PRICES),
  );
}

export type CeilingUse = { done: number; stopped: number; spentUsd: number; ceilingUsd: number };

/** One line of the table the ceiling tests print. */
export function ceilingLine(label: string, use: CeilingUse): string {
  const percent = ((use.spentUsd / use.ceilingUsd) * 100).toFixed(1);
  const overshoot = roundUsd(Math.max(0, use.spentUsd - use.ceilingUsd));
  return `${label.padEnd(22)} done ${String(use.done).padStart(2)}  stopped ${String(use.stopped).padStart(2)}  spend $${use.spentUsd.toFixed(6)} / $${use.ceilingUsd.toFixed(6)} = ${percent.padStart(5)}%  overshoot $${overshoot}`;
}

export const totalCost = (runs: (Run | undefined)[]): number =>
  roundUsd(runs.reduce((sum, run) => sum + (run?.costUsd ?? 0), 0));
