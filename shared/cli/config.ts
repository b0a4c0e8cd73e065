/** Where the CLI sends its requests: flags, then environment, then the local stack's own files. */
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { ApiClient } from './client.ts';

export const DEFAULT_LOCAL_URL = 'http://127.0.0.1:8787';

export type ClientFlags = { url?: string; apiKey?: string; aws?: boolean; region?: string; dataDir?: string };

export function clientFrom(flags: ClientFlags, env: NodeJS.ProcessEnv = process.env): ApiClient {
  const url = flags.url ?? env.WF_URL ?? DEFAULT_LOCAL_URL;
  if (flags.aws || env.WF_AUTH === 'aws') {
    const region =
      flags.region ?? env.AWS_REGION ?? /execute-api\.([a-z0-9-]+)\.amazonaws\.com/.exec(url)?.[1];
    if (!region) throw new Error('--aws needs a region: pass --region or set AWS_REGION');
    return new ApiClient(url, { kind: 'sigv4', region });
  }
  const apiKey = flags.apiKey ?? env.WF_API_KEY ?? localApiKey(flags.dataDir ?? env.WF_DATA_DIR ?? '.local');
  if (!apiKey)
    throw new Error(
      `no API key: pass --api-key, set WF_API_KEY, or start the local stack (wf local up) so ${join('.local', 'api-keys.json')} exists`,
    );
  return new ApiClient(url, { kind: 'api-key', apiKey });
}

/**
 * The owner API key of the local stack's keys file, when it holds exactly one (client keys are the jobs
 * clients', never the CLI's). With several owner keys the CLI would act as whichever owner happens to be
 * listed first, so it refuses to guess and asks for --api-key / WF_API_KEY.
 */
export function localApiKey(dataDir: string): string | undefined {
  const path = join(dataDir, 'api-keys.json');
  if (!existsSync(path)) return undefined;
  const keys = JSON.parse(readFileSync(path, 'utf8')) as {
    keys?: Record<string, { owner: string; client?: string }>;
  };
  const ownerKeys = Object.entries(keys.keys ?? {}).filter(([, entry]) => entry.client === undefined);
  if (ownerKeys.length > 1) {
    const owners = [...new Set(ownerKeys.map(([, entry]) => entry.owner))].join(', ');
    throw new Error(
      `${path} holds ${ownerKeys.length} owner keys (owners: ${owners}): pass --api-key or set WF_API_KEY to say which to use`,
    );
  }
  return ownerKeys[0]?.[0];
}
