import { describe, expect, it } from 'vitest';
import { UnknownModelPriceError } from '../../shared/core/errors.ts';
import { bareModelId } from '../../shared/core/model-id.ts';
import type { ModelRequest } from '../../shared/core/ports.ts';
import {
  CACHE_READ_MULTIPLIER,
  CACHE_SCOPE_BYTES,
  CACHE_WRITE_5M_MULTIPLIER,
  costOf,
  DEFAULT_PRICES,
  priceFor,
  requestInputTokensBound,
  reservationFor,
  TOOL_USE_SYSTEM_PROMPT_TOKENS,
} from '../../shared/core/pricing.ts';
import { cacheScopeText } from '../../shared/model/anthropic-mapping.ts';

describe('Function: bareModelId', () => {
  it.each([
    ['claude-sonnet-4-5', 'claude-sonnet-4-5'],
    ['claude-sonnet-4-5-20250929', 'claude-sonnet-4-5'],
    ['anthropic.claude-sonnet-4-5-20250929-v1:0', 'claude-sonnet-4-5'],
    ['us.anthropic.claude-sonnet-4-5-20250929-v1:0', 'claude-sonnet-4-5'],
    ['eu.anthropic.claude-haiku-4-5-20251001-v1:0', 'claude-haiku-4-5'],
    ['apac.anthropic.claude-3-5-haiku-20241022-v1:0', 'claude-3-5-haiku'],
    ['global.anthropic.claude-opus-4-5-20251101-v1:0', 'claude-opus-4-5'],
    ['us-gov.anthropic.claude-sonnet-4-5-20250929-v1:0', 'claude-sonnet-4-5'],
    ['anthropic.claude-opus-4-6-v1', 'claude-opus-4-6'],
    ['anthropic.claude-3-haiku-20240307-v1:0:200k', 'claude-3-haiku'],
    ['anthropic.claude-opus-5-5', 'claude-opus-5-5'],
  ])('reduces %s to %s', (id, bare) => {
    expect(bareModelId(id)).toBe(bare);
  });
});

describe('Function: priceFor', () => {
  it.each([
    'claude-sonnet-4-5',
    'claude-sonnet-4-5-20250929',
    'anthropic.claude-sonnet-4-5-20250929-v1:0',
    'us.anthropic.claude-sonnet-4-5-20250929-v1:0',
    'global.anthropic.claude-sonnet-4-5-20250929-v1:0',
    'us-gov.anthropic.claude-sonnet-4-5-20250929-v1:0',
  ])('prices %s as Claude Sonnet 4.5', (id) => {
    expect(priceFor(id, DEFAULT_PRICES)).toEqual(DEFAULT_PRICES['claude-sonnet-4-5']);
  });

  it('prices a dated Sonnet 4 as Sonnet 4, not as a longer key it happens to share a prefix with', () => {
    expect(priceFor('us.anthropic.claude-sonnet-4-20250514-v1:0', DEFAULT_PRICES)).toEqual(
      DEFAULT_PRICES['claude-sonnet-4'],
    );
  });

  it.each([
    'claude-some-future-model',
    'anthropic.claude-some-future-model-v1:0',
    'claude-opus-4-10',
    'meta.llama3-70b-instruct-v1:0',
    'constructor',
    'hasownproperty',
  ])('fails closed on %s, which the table does not hold', (id) => {
    expect(() => priceFor(id, DEFAULT_PRICES)).toThrow(UnknownModelPriceError);
  });
});

describe('Function: costOf', () => {
  it.each(Object.entries(DEFAULT_PRICES))(
    'prices %s cache writes at 1.25× and cache reads at 0.1× its input price, as documented',
    (_model, price) => {
      expect(price.cacheWrite).toBeCloseTo(price.input * CACHE_WRITE_5M_MULTIPLIER, 9);
      expect(price.cacheRead).toBeCloseTo(price.input * CACHE_READ_MULTIPLIER, 9);
    },
  );

  it('charges each kind of token at its own price (hand-computed)', () => {
    // 1,000 uncached × $2 + 500 out × $10 + 4,000 written × $2.5 + 20,000 read × $0.2, per million tokens.
    const usage = {
      inputTokens: 1000,
      outputTokens: 500,
      cacheCreationInputTokens: 4000,
      cacheReadInputTokens: 20_000,
    };

    expect(costOf(usage, DEFAULT_PRICES['claude-sonnet-5-5']!)).toBe(0.021);
  });
});

describe('Function: reservationFor', () => {
  const request: ModelRequest = {
    model: 'claude-sonnet-5-5',
    system: 'You file notes.',
    messages: [{ role: 'user', content: [{ type: 'text', text: 'hi' }] }],
    tools: [],
    maxTokens: 100,
    thinking: 'off',
  };
  const bytes = Buffer.byteLength(
    JSON.stringify({ system: request.system, messages: request.messages, tools: request.tools }),
  );
  const tool = { name: 'notes_append', description: 'Append a line.', inputSchema: { type: 'object' } };

  it('bounds the input by the request bytes when there are no tools and no owner', () => {
    expect(requestInputTokensBound(request)).toBe(bytes);
  });

  it('adds the tool-use system prompt the API adds to a request with tools (up to 530 tokens documented)', () => {
    const withTools = { ...request, tools: [tool] };
    expect(TOOL_USE_SYSTEM_PROMPT_TOKENS).toBeGreaterThanOrEqual(530);
    expect(
      requestInputTokensBound(withTools) - requestInputTokensBound({ ...withTools, tools: [] }),
    ).toBeGreaterThan(TOOL_USE_SYSTEM_PROMPT_TOKENS);
  });

  it("adds the owner's cache-scope block exactly as long as the adapter sends it", () => {
    expect(cacheScopeText('alice').length).toBe(CACHE_SCOPE_BYTES);
    expect(requestInputTokensBound({ ...request, owner: 'alice' })).toBe(bytes + CACHE_SCOPE_BYTES);
  });

  it('prices the bound at the dearest input rate plus max_tokens of output (hand-computed)', () => {
    const price = DEFAULT_PRICES['claude-sonnet-5-5']!;
    const owned = { ...request, owner: 'alice', tools: [tool] };
    const input = requestInputTokensBound(owned);
    const expected = Math.round(((input * price.cacheWrite + 100 * price.output) / 1e6) * 1e6) / 1e6;
    expect(reservationFor(owned, price)).toBe(expected);
  });
});
