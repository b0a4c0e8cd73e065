/** Where the CLI sends its requests: flags, then environment, then the local stack's own files. */
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { ApiClient, DEFAULT_REQUEST_TIMEOUT_MS } from './client.ts';
import { UsageError } from './commands.ts';

export const DEFAULT_LOCAL_URL = 'http://127.0.0.1:8787';
const DEFAULT_DATA_DIR = '.local';

/**
 * The local stack's data directory, the same for every command (`wf local up` keeps its files there, the others
 * read its API key and signing key from there): `--data-dir`, else `WF_DATA_DIR`, else `.local`. An empty value
 * counts as unset.
 */
export const localDataDir = (flag: string | undefined, env: NodeJS.ProcessEnv): string =>
  flag || env.WF_DATA_DIR || DEFAULT_DATA_DIR;

export type ClientFlags = {
  url?: string;
  apiKey?: string;
  aws?: boolean;
  region?: string;
  dataDir?: string;
  /** Seconds one request may take (`--request-timeout`). */
  requestTimeout?: string;
};

/** The API URL, from `--url` or `WF_URL`: an http(s) URL, or a usage error naming where it came from. */
function apiUrl(flags: ClientFlags, env: NodeJS.ProcessEnv): string {
  const url = flags.url ?? env.WF_URL ?? DEFAULT_LOCAL_URL;
  const from = flags.url !== undefined ? '--url' : 'WF_URL';
  let parsed: URL | undefined;
  try {
    parsed = new URL(url);
  } catch {}
  if (parsed?.protocol !== 'http:' && parsed?.protocol !== 'https:')
    throw new UsageError(
      `${from} '${url}' is not an http(s) URL, e.g. ${DEFAULT_LOCAL_URL} or a stack's ApiUrl output`,
    );
  return url;
}

/** Milliseconds one request may take: `--request-timeout S`, else `WF_REQUEST_TIMEOUT`, else 60 s. */
export function requestTimeoutMs(flags: ClientFlags, env: NodeJS.ProcessEnv): number {
  const value = flags.requestTimeout ?? env.WF_REQUEST_TIMEOUT;
  if (value === undefined || value === '') return DEFAULT_REQUEST_TIMEOUT_MS;
  const seconds = Number(value);
  if (!/^\d+(\.\d+)?$/.test(value) || seconds <= 0 || seconds > 3600) {
    const from = flags.requestTimeout !== undefined ? '--request-timeout' : 'WF_REQUEST_TIMEOUT';
    throw new UsageError(`${from} '${value}' must be a number of seconds, more than 0 and at most 3600`);
  }
  return Math.round(seconds * 1000);
}

export function clientFrom(flags: ClientFlags, env: NodeJS.ProcessEnv = process.env): ApiClient {
  const url = apiUrl(flags, env);
  const options = { timeoutMs: requestTimeoutMs(flags, env) };
  if (flags.aws || env.WF_AUTH === 'aws') {
    const region =
      flags.region ?? env.AWS_REGION ?? /execute-api\.([a-z0-9-]+)\.amazonaws\.com/.exec(url)?.[1];
    if (!region) throw new Error('--aws needs a region: pass --region or set AWS_REGION');
    return new ApiClient(url, { kind: 'sigv4', region }, options);
  }
  const dataDir = localDataDir(flags.dataDir, env);
  const apiKey = flags.apiKey ?? env.WF_API_KEY ?? localApiKey(dataDir);
  if (!apiKey)
    throw new Error(
      `no API key: pass --api-key, set WF_API_KEY, or start the local stack (wf local up) so ${join(dataDir, 'api-keys.json')} exists`,
    );
  return new ApiClient(url, { kind: 'api-key', apiKey }, options);
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
