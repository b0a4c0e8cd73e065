/**
 * `ModelPort.maxOutputTokens` is what the budget reserves at the output rate: it must equal the `max_tokens`
 * the adapter really sends, for every priced model, every thinking level and either thinking style.
 */
import { describe, expect, it } from 'vitest';
import { maxOutputTokensOf } from '../../shared/core/output-tokens.ts';
import type { ThinkingLevel } from '../../shared/core/ports.ts';
import { DEFAULT_PRICES } from '../../shared/core/pricing.ts';
import type { ThinkingStyle } from '../../shared/model/thinking.ts';
import { BEDROCK_MODEL, modelOn, modelRequest, scripted } from './helpers.ts';

const LEVELS: ThinkingLevel[] = ['off', 'low', 'medium', 'high'];
const STYLES: (ThinkingStyle | 'auto')[] = ['auto', 'budget', 'adaptive'];

describe.each(Object.keys(DEFAULT_PRICES))('max_tokens of %s', (model) => {
  it.each(STYLES)('equals what the adapter sends (thinking style %s)', async (style) => {
    // Prepare
    const server = await scripted({ turns: [{ text: 'ok' }] });
    const port = modelOn(server, { thinkingStyle: style });

    for (const thinking of LEVELS) {
      for (const maxTokens of [1024, 20_000]) {
        const request = modelRequest({ model, thinking, maxTokens });

        // Act
        await port.call(request);

        // Assess
        const sent = (server.requests.at(-1)!.body as { max_tokens: number }).max_tokens;
        expect(port.maxOutputTokens?.(request)).toBe(sent);
        expect(sent).toBeGreaterThanOrEqual(maxTokens);
        if (style === 'auto') expect(maxOutputTokensOf(request)).toBe(sent);
      }
    }
  });
});

describe('max_tokens on Bedrock', () => {
  it.each([BEDROCK_MODEL, 'anthropic.claude-haiku-4-5-20251001-v1:0'])(
    'equals what the Bedrock adapter sends for %s',
    async (model) => {
      // Prepare
      const server = await scripted({ turns: [{ text: 'ok' }] });
      const port = modelOn(server, {}, 'bedrock');

      for (const thinking of LEVELS) {
        const request = modelRequest({ model, thinking, maxTokens: 1024 });

        // Act
        await port.call(request);

        // Assess
        const sent = (server.requests.at(-1)!.body as { max_tokens: number }).max_tokens;
        expect(port.maxOutputTokens?.(request)).toBe(sent);
        expect(maxOutputTokensOf(request)).toBe(sent);
      }
    },
  );
});
