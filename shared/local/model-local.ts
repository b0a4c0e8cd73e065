/**
 * The local stack's model: real Claude when an API key is given (through a recording proxy with `record`),
 * otherwise the scripted Messages-API server, through the same SDK either way.
 */
import { readdir, readFile } from 'node:fs/promises';
import type { ModelPort } from '../core/ports.ts';
import { ADD_FIXTURE_HINT, mergeFixtures, readFixtureDirs } from '../model/fixture-dir.ts';
import { type ScriptedFixture, startScriptedModelServer } from '../model/index.ts';
import { type RecordingProxy, startRecordingProxy } from '../model/recording-proxy.ts';
import { modelFor } from '../runtime/model-router.ts';
import type { LocalStackOptions } from './stack-options.ts';
import type { Closers } from './stack-parts.ts';

export type LocalModel = {
  model: ModelPort;
  /** The scripted server's URL (undefined with real Claude). */
  modelUrl: string | undefined;
  /** The recording proxy in front of Claude (with an API key and `record`). */
  recorder: RecordingProxy | undefined;
};

async function exampleFixtures(): Promise<ScriptedFixture[]> {
  const dir = new URL('../../examples/fixtures/', import.meta.url);
  const names = (await readdir(dir)).filter((name) => name.endsWith('.fixture.json'));
  return Promise.all(
    names.map(async (name) => JSON.parse(await readFile(new URL(name, dir), 'utf8')) as ScriptedFixture),
  );
}

export async function startLocalModel(options: LocalStackOptions, closers: Closers): Promise<LocalModel> {
  let modelUrl = options.scriptedModelUrl;
  if (!options.anthropicApiKey && !modelUrl) {
    const dirs = options.fixtureDirs ?? [];
    const scripted = await startScriptedModelServer({
      fixtures: mergeFixtures(options.fixtures ?? (await exampleFixtures()), readFixtureDirs(dirs)),
      reload: () => readFixtureDirs(dirs),
      missingHint: ADD_FIXTURE_HINT,
    });
    closers.push(() => scripted.close());
    modelUrl = scripted.url;
  }
  let recorder: RecordingProxy | undefined;
  if (options.anthropicApiKey && options.record) {
    recorder = await startRecordingProxy({
      upstream: options.anthropicBaseUrl ?? 'https://api.anthropic.com',
    });
    closers.push(() => recorder?.close());
  }
  const anthropicBaseUrl = recorder?.url ?? options.anthropicBaseUrl;
  const model = modelFor(
    options.anthropicApiKey
      ? {
          kind: 'anthropic',
          apiKey: options.anthropicApiKey,
          ...(anthropicBaseUrl ? { baseURL: anthropicBaseUrl } : {}),
          recording: recorder !== undefined,
        }
      : { kind: 'scripted', baseURL: modelUrl! },
  );
  return { model, modelUrl, recorder };
}
