/**
 * The runtime's own secrets (the approval signing keyring, the Anthropic key). Powertools caches each for
 * maxAge seconds, so a rotated value is used within SECRET_CACHE_TTL_MS without a redeploy; `force` bypasses
 * the cache when a signature check or a model call says the cached value is stale.
 */
import { SecretsProvider } from '@aws-lambda-powertools/parameters/secrets';
import { SecretsManagerClient } from '@aws-sdk/client-secrets-manager';
import { SECRET_CACHE_TTL_MS } from '../../credentials/file-secrets.ts';
import { awsClient } from './client.ts';

/** Reads a runtime secret by ARN; `what` names it in the error when it is empty. */
export type RuntimeSecretReader = (arn: string, force: boolean, what: string) => Promise<string>;

let reader: RuntimeSecretReader | undefined;

export function runtimeSecretReader(): RuntimeSecretReader {
  if (reader) return reader;
  const provider = new SecretsProvider({ awsSdkV3Client: awsClient(new SecretsManagerClient({})) });
  reader = async (arn, force, what) => {
    const value = await provider.get(arn, { maxAge: SECRET_CACHE_TTL_MS / 1000, forceFetch: force });
    if (typeof value !== 'string' || value.trim() === '') throw new Error(`the ${what} secret is empty`);
    return value;
  };
  return reader;
}
