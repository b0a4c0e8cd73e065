import { describe, expect, it } from 'vitest';
import { UnknownModelPriceError } from '../../shared/core/errors.ts';
import { bareModelId } from '../../shared/core/model-id.ts';
import {
  CACHE_READ_MULTIPLIER,
  CACHE_WRITE_5M_MULTIPLIER,
  costOf,
  DEFAULT_PRICES,
  priceFor,
} from '../../shared/core/pricing.ts';

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
