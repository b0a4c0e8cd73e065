/**
 * Deployments observe external executions by polling only (no route receives engine callbacks). An engine
 * configured with `callback` used to be accepted: the engine was told to push to a URL nothing serves or
 * verifies. Both composition roots now refuse it at start-up, naming the setting.
 */
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ExternalEngineUnavailableError } from '../../shared/external/index.ts';
import { localEngineRegistry } from '../../shared/local/external-local.ts';
import { engineRegistryFrom } from '../../shared/runtime/aws/external.ts';

const withCallback = {
  'http-runtime': {
    enabled: true,
    settings: {
      endpoint: 'https://engine.internal/runtime',
      callback: { url: 'https://api.example.com/v1/external/callbacks', secret: 'engine-callback' },
    },
  },
};
const polling = {
  'http-runtime': { enabled: true, settings: { endpoint: 'https://engine.internal/runtime' } },
};

const refusal = (build: () => unknown) => {
  try {
    build();
  } catch (error) {
    return error;
  }
  return undefined;
};

describe('external engines: polling only', () => {
  it.each<[string, (config: unknown) => unknown]>([
    ['on AWS (WF_EXTERNAL_ENGINES)', (config) => engineRegistryFrom(JSON.stringify(config))],
    [
      'on the local stack (engines.json)',
      (config) => {
        const dir = mkdtempSync(join(tmpdir(), 'wf-engines-'));
        writeFileSync(join(dir, 'engines.json'), JSON.stringify(config));
        return localEngineRegistry(dir, undefined);
      },
    ],
    ['on the local stack (the option)', (config) => localEngineRegistry(tmpdir(), config as never)],
  ])('refuses an engine with `callback` %s, naming the setting', (_where, build) => {
    const error = refusal(() => build(withCallback));
    expect(error).toBeInstanceOf(ExternalEngineUnavailableError);
    expect((error as ExternalEngineUnavailableError).field).toBe('engines.http-runtime.settings.callback');
    expect((build(polling) as { enabled(): string[] }).enabled()).toEqual(['http-runtime']);
  });

  it('lets a disabled engine keep its callback settings (nothing uses them)', () => {
    const disabled = { 'http-runtime': { ...withCallback['http-runtime'], enabled: false } };
    expect(engineRegistryFrom(JSON.stringify(disabled)).enabled()).toEqual([]);
  });
});
