/**
 * WorkflowWrite checks saves against the engines' names and settings schemas only (`engineChecksFrom`,
 * external/builtin-settings.ts), not the registry with its adapters: the two must name the same engines and
 * answer every configuration and every check the same way (the same errors, naming the same fields).
 */
import { describe, expect, it } from 'vitest';
import { BUILTIN_ENGINE_SETTINGS } from '../../shared/external/builtin-settings.ts';
import { BUILTIN_ENGINE_FACTORIES } from '../../shared/external/builtins.ts';
import { engineChecksFrom, engineRegistryFrom } from '../../shared/runtime/aws/external.ts';

const endpoint = 'https://engine.internal/runtime';
const CONFIGS: [string, string | undefined][] = [
  ['unset', undefined],
  ['blank', '  '],
  ['none enabled', JSON.stringify({ 'http-runtime': { enabled: false, settings: { endpoint } } })],
  ['http-runtime enabled', JSON.stringify({ 'http-runtime': { enabled: true, settings: { endpoint } } })],
  ['settings missing the endpoint', JSON.stringify({ 'http-runtime': { enabled: true } })],
  ['an unknown engine enabled', JSON.stringify({ 'other-engine': { enabled: true } })],
  ['an unknown engine disabled', JSON.stringify({ 'other-engine': { enabled: false } })],
  ['a bad engine name', JSON.stringify({ 'Bad Name!': { enabled: true } })],
  [
    'callbacks asked for (polling only)',
    JSON.stringify({
      'http-runtime': {
        enabled: true,
        settings: { endpoint, callback: { url: endpoint, secret: 'engine' } },
      },
    }),
  ],
];
const ENGINES = ['http-runtime', 'other-engine', '', 'constructor'];

/** What a registry-like object answers: the error building it, or `enabled` and every check. */
function answers(build: () => { enabled(): string[]; check(engine: string, field?: string): void }) {
  const outcome = (fn: () => unknown) => {
    try {
      return { value: fn() };
    } catch (error) {
      const { name, message, field, reason } = error as Record<string, unknown>;
      return { error: { name, message, field, reason } };
    }
  };
  const built = outcome(build);
  if ('error' in built) return built;
  const checks = built.value as ReturnType<typeof build>;
  return {
    enabled: checks.enabled(),
    checks: ENGINES.map((engine) => outcome(() => checks.check(engine, 'external.engine'))),
  };
}

describe('the save-time engine checks', () => {
  it('know the built-in engines by the same names and settings schemas as their factories', () => {
    expect(BUILTIN_ENGINE_SETTINGS.map(({ engine, settings }) => ({ engine, settings }))).toEqual(
      BUILTIN_ENGINE_FACTORIES.map(({ engine, settings }) => ({ engine, settings })),
    );
    for (const [index, { settings }] of BUILTIN_ENGINE_SETTINGS.entries())
      expect(settings).toBe(BUILTIN_ENGINE_FACTORIES[index]?.settings);
  });

  it.each(CONFIGS)('answer like the registry when WF_EXTERNAL_ENGINES is %s', (_label, json) => {
    const before = answers(() => engineRegistryFrom(json));
    expect(answers(() => engineChecksFrom(json))).toEqual(before);
  });

  it('refuse and accept as the cases above say (the comparison is not vacuous)', () => {
    const outcomes = CONFIGS.map(([, json]) => answers(() => engineChecksFrom(json)));
    expect(outcomes.filter((outcome) => 'error' in outcome)).toHaveLength(4);
    const enabled = outcomes[3];
    expect(enabled && 'checks' in enabled && [enabled.enabled, enabled.checks[0]]).toEqual([
      ['http-runtime'],
      { value: undefined },
    ]);
  });
});
