/**
 * The turn function's model: Claude on the Anthropic API with the key from its secret (re-read on rotation
 * or a refused key), or Claude on Amazon Bedrock with the function's role.
 *
 * The provider is fixed per deployment. The CDK bundles Turn with `process.env.WF_MODEL_PROVIDER` defined as
 * the deployment's provider (RuntimeFunction `bundledEnvironment`), so esbuild drops the Bedrock branch and
 * its import from an Anthropic deployment's bundle (~370 KB: the Bedrock client brings every beta resource,
 * SigV4 and the event-stream codec). Unbundled (tests) the variable is read at run time.
 */
import { ENV } from '../../../infra/constructs/env-names.ts';
import type { ModelPort } from '../../core/ports.ts';
import { SECRET_CACHE_TTL_MS } from '../../credentials/file-secrets.ts';
import { ttlCache } from '../../credentials/ttl-cache.ts';
import { createAnthropicModel } from '../../model/anthropic.ts';
import { systemClock } from '../clock.ts';
import { refreshingModel } from '../refreshing-model.ts';
import { awsEnv } from './env.ts';
import { modelCallTimeLimitMs } from './invocation-deadline.ts';
import { runtimeSecretReader } from './runtime-secrets.ts';

let model: Promise<ModelPort> | undefined;

export function awsModel(): Promise<ModelPort> {
  model ??= loadModel().catch((error: unknown) => {
    model = undefined;
    throw error;
  });
  return model;
}

async function loadModel(): Promise<ModelPort> {
  // Parsed first: a provider other than anthropic or bedrock is refused, whatever the bundle holds.
  const env = awsEnv();
  // Spelled out (not ENV.modelProvider): esbuild's define replaces this exact expression.
  if (process.env.WF_MODEL_PROVIDER === 'bedrock') {
    const { bedrockSourceFrom, modelFor } = await import('../model-router.ts');
    return modelFor(bedrockSourceFrom(process.env), { callTimeLimitMs: modelCallTimeLimitMs });
  }
  const arn = env[ENV.anthropicSecretArn];
  if (!arn)
    throw new Error(`${ENV.anthropicSecretArn} is not set: the turn function has no Anthropic API key`);
  const read = runtimeSecretReader();
  const apiKey = ttlCache(
    async (force) =>
      (await read(arn, force, 'Anthropic API key (put the key into it: docs/deploy.md)')).trim(),
    { maxAgeMs: SECRET_CACHE_TTL_MS, nowMs: () => systemClock.nowMs() },
  );
  return refreshingModel(apiKey, (key) =>
    createAnthropicModel({ apiKey: key, callTimeLimitMs: modelCallTimeLimitMs }),
  );
}
