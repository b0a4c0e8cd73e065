import { describe, expect, it } from 'vitest';
import { ModelConfigError } from '../../shared/model/errors.ts';
import { DEFAULT_MODEL_CONFIG, modelConfig, resolveModel } from '../../shared/model/resolve.ts';

describe('resolveModel', () => {
  it.each([
    ['fast', 'claude-haiku-4-5'],
    ['balanced', 'claude-sonnet-5-5'],
    ['deep', 'claude-opus-5-5'],
  ])('maps the role %s to %s by default', (role, id) => {
    // Act / Assess
    expect(resolveModel(role)).toBe(id);
  });

  it('maps a role through an overriding config and keeps the other defaults', () => {
    // Prepare
    const config = modelConfig({ deep: 'claude-opus-4-8' });

    // Act / Assess
    expect(resolveModel('deep', config)).toBe('claude-opus-4-8');
    expect(resolveModel('fast', config)).toBe(DEFAULT_MODEL_CONFIG.roles.fast);
  });

  it.each(['claude-sonnet-4-6', 'claude-haiku-4-5-20251001', 'anthropic.claude-opus-5-5'])(
    'passes the explicit model id %s through',
    (id) => {
      // Act / Assess
      expect(resolveModel(id)).toBe(id);
    },
  );

  it('rejects an unknown role with a ModelConfigError naming it', () => {
    // Act
    const act = () => resolveModel('turbo');

    // Assess
    expect(act).toThrow(ModelConfigError);
    expect(act).toThrow(/unknown model role "turbo"/);
  });

  it('rejects a role that the config maps to nothing', () => {
    // Prepare
    const config = { roles: { ...DEFAULT_MODEL_CONFIG.roles, balanced: '' } };

    // Act / Assess
    expect(() => resolveModel('balanced', config)).toThrow(/model role "balanced" has no model/);
  });
});
