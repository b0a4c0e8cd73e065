/**
 * The turn function's model: Claude on the Anthropic API with the key from its secret (re-read on rotation
 * or a refused key), or Claude on Amazon Bedrock with the function's role.
 */
import { ENV } from '../../../infra/constructs/env-names.ts';
import type { ModelPort } from '../../core/ports.ts';
import { SECRET_CACHE_TTL_MS } from '../../credentials/file-secrets.ts';
import { ttlCache } from '../../credentials/ttl-cache.ts';
import { createAnthropicModel } from '../../model/anthropic.ts';
import { systemClock } from '../clock.ts';
import { bedrockSourceFrom, modelFor } from '../model-router.ts';
import { refreshingModel } from '../refreshing-model.ts';
import { awsEnv } from './env.ts';
import { runtimeSecretReader } from './runtime-secrets.ts';

let model: ModelPort | undefined;

export function awsModel(): ModelPort {
  model ??= loadModel();
  return model;
}

function loadModel(): ModelPort {
  const env = awsEnv();
  if (env[ENV.modelProvider] === 'bedrock') return modelFor(bedrockSourceFrom(process.env));
  const arn = env[ENV.anthropicSecretArn];
  if (!arn)
    throw new Error(`${ENV.anthropicSecretArn} is not set: the turn function has no Anthropic API key`);
  const read = runtimeSecretReader();
  const apiKey = ttlCache(
    async (force) =>
      (await read(arn, force, 'Anthropic API key (put the key into it: docs/deploy.md)')).trim(),
    { maxAgeMs: SECRET_CACHE_TTL_MS, nowMs: () => systemClock.nowMs() },
  );
  return refreshingModel(apiKey, (key) => createAnthropicModel({ apiKey: key }));
}
