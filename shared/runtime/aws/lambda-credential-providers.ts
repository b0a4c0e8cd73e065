/**
 * The Lambda bundles' `@aws-sdk/credential-providers` (an esbuild alias set by `RuntimeFunction`,
 * infra/constructs/runtime-function.ts): the three functions the Bedrock client takes from it, with the
 * chain's Node.js links reduced to the execution role's credentials, as lambda-credentials.ts does for the SDK
 * clients.
 *
 * `@anthropic-ai/bedrock-sdk` signs with credentials it resolves on the first request through
 * `import('@aws-sdk/credential-providers')`: `createCredentialChain(fromEnv(), fromNodeProviderChain())`
 * (core/auth.mjs). Its `fromNodeProviderChain` is `@aws-sdk/credential-provider-node`'s `defaultProvider`, which
 * the bundles already take from lambda-credentials.ts, so in Lambda both links read the environment. But a
 * dynamic import's module is bundled whole: the package's index re-exports every provider (SSO, ini files,
 * Cognito, STS's temporary and web-identity credentials, the container and instance metadata endpoints,
 * login), which brought the SSO, STS and Cognito clients into the Turn bundle for nothing. Here the same three
 * names give the same chain: the environment link, the Lambda provider, and a chain that tries them in order as
 * the package's does. Local mode, the CLI and the tests import the package itself.
 */
import { type FromEnvInit, fromEnv } from '@aws-sdk/credential-provider-env';
import { defaultProvider } from './lambda-credentials.ts';

type CredentialProvider = ReturnType<typeof fromEnv>;

export { fromEnv };

/** The Node.js default chain in Lambda: the execution role's credentials (lambda-credentials.ts). */
export const fromNodeProviderChain = (init: FromEnvInit = {}): CredentialProvider => defaultProvider(init);

/**
 * The package's `createCredentialChain` as the Bedrock client calls it: the first link's credentials, or the
 * next link's when a link fails with `tryNextLink` (the environment link when a variable is missing); the last
 * failure otherwise. Without the package's `expireAfter`, which the Bedrock client does not call.
 */
export function createCredentialChain(...links: CredentialProvider[]): CredentialProvider {
  return async (properties) => {
    let lastError: unknown = new Error('no credential provider in the chain');
    for (const link of links) {
      try {
        return await link(properties);
      } catch (error) {
        lastError = error;
        if (!(error as { tryNextLink?: boolean } | undefined)?.tryNextLink) throw error;
      }
    }
    throw lastError;
  };
}
