import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import {
  type AdapterContext,
  createEngineRegistry,
  type ExternalAdapter,
  type ExternalAdapterFactory,
  ExternalEngineUnavailableError,
} from '../../shared/external/index.ts';

const created: unknown[] = [];
const factory: ExternalAdapterFactory<{ endpoint: string }> = {
  engine: 'echo',
  settings: z.object({ endpoint: z.string().min(1, 'is required') }).strict(),
  create(settings) {
    created.push(settings);
    return { engine: 'echo' } as ExternalAdapter;
  },
};
const context = {} as AdapterContext;

function unavailable(fn: () => unknown): ExternalEngineUnavailableError {
  try {
    fn();
  } catch (error) {
    if (error instanceof ExternalEngineUnavailableError) return error;
    throw error;
  }
  throw new Error('expected ExternalEngineUnavailableError');
}

describe('createEngineRegistry', () => {
  it('creates an adapter of an enabled engine with its validated settings', () => {
    // Prepare
    const registry = createEngineRegistry([factory], {
      echo: { enabled: true, settings: { endpoint: 'x' } },
    });

    // Act
    const adapter = registry.create('echo', context);

    // Assess
    expect(adapter.engine).toBe('echo');
    expect(created.at(-1)).toEqual({ endpoint: 'x' });
    expect(registry.enabled()).toEqual(['echo']);
  });

  it('names the workflow field when the engine is unknown', () => {
    const registry = createEngineRegistry([factory], {});
    const error = unavailable(() => registry.check('nope', 'external.engine'));
    expect(error).toMatchObject({
      name: 'ExternalEngineUnavailableError',
      reason: 'unknown',
      field: 'external.engine',
    });
    expect(error.message).toContain('registered: echo');
  });

  it.each([
    ['absent from the configuration', {}],
    ['configured but not enabled', { echo: { enabled: false, settings: { endpoint: 'x' } } }],
  ])('refuses a registered engine that is %s as disabled', (_label, config) => {
    const registry = createEngineRegistry([factory], config);
    const error = unavailable(() => registry.create('echo', context, 'external.engine'));
    expect(error).toMatchObject({ reason: 'disabled', field: 'external.engine', engine: 'echo' });
  });

  it('refuses at build time an enabled engine with invalid settings, naming the settings field', () => {
    const error = unavailable(() =>
      createEngineRegistry([factory], { echo: { enabled: true, settings: {} } }),
    );
    expect(error).toMatchObject({ reason: 'invalid_settings', field: 'engines.echo.settings.endpoint' });
  });

  it('refuses at build time an enabled engine that no factory provides', () => {
    const error = unavailable(() => createEngineRegistry([factory], { ghost: { enabled: true } }));
    expect(error).toMatchObject({ reason: 'unknown', field: 'engines.ghost' });
  });

  it('refuses a malformed engine name in the configuration', () => {
    const error = unavailable(() => createEngineRegistry([factory], { 'Bad-Name': { enabled: true } }));
    expect(error.reason).toBe('invalid_settings');
    expect(error.field).toContain('engines');
  });
});
