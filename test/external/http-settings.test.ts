import { describe, expect, it } from 'vitest';
import { httpRuntimeFactory } from '../../shared/external/http/index.ts';
import { createEngineRegistry, ExternalEngineUnavailableError } from '../../shared/external/index.ts';

function settingsError(settings: Record<string, unknown>): ExternalEngineUnavailableError {
  try {
    createEngineRegistry([httpRuntimeFactory], { 'http-runtime': { enabled: true, settings } });
  } catch (error) {
    if (error instanceof ExternalEngineUnavailableError) return error;
    throw error;
  }
  throw new Error('expected the settings to be refused');
}

describe('http-runtime settings', () => {
  it.each([
    ['not a URL', 'must be an absolute URL'],
    ['ftp://engine.example', 'must use http or https'],
    ['file:///etc/passwd', 'must use http or https'],
    ['https://user:pw@engine.example', 'must not carry userinfo'],
    ['https://engine.example/api?token=1', 'must not have a query'],
    ['https://engine.example/api?', 'must not have a query'],
    ['https://engine.example/api#top', 'must not have a fragment'],
  ])('refuses the endpoint %s, naming the field', (endpoint, message) => {
    const error = settingsError({ endpoint });
    expect(error.field).toBe('engines.http-runtime.settings.endpoint');
    expect(error.reason).toBe('invalid_settings');
    expect(error.message).toContain(message);
  });

  it.each([
    [{ endpoint: 'https://e.example', auth: { header: 'x y' } }, 'auth.header'],
    [{ endpoint: 'https://e.example', auth: { format: 'Bearer' } }, 'auth.format'],
    [
      { endpoint: 'https://e.example', callback: { url: 'https://api.example/cb?x=1', secret: 'k' } },
      'callback.url',
    ],
    [{ endpoint: 'https://e.example', surprise: true }, ''],
  ])('refuses invalid settings %j, naming the field', (settings, field) => {
    const error = settingsError(settings);
    expect(error.field).toBe(`engines.http-runtime.settings${field ? `.${field}` : ''}`);
  });

  it('accepts an http(s) endpoint with a path and drops its trailing slash', () => {
    const parsed = httpRuntimeFactory.settings.parse({ endpoint: 'https://engine.example/runtime/' });
    expect(parsed).toEqual({
      endpoint: 'https://engine.example/runtime',
      auth: { header: 'authorization', format: 'Bearer {secret}' },
      maxArtifactBytes: 32 * 1024 * 1024,
    });
  });
});
