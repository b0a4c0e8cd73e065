/**
 * The AWS credentials of a Lambda function: its execution role's, which Lambda puts in the environment as
 * AWS_ACCESS_KEY_ID, AWS_SECRET_ACCESS_KEY and AWS_SESSION_TOKEN ("Defined runtime environment variables",
 * https://docs.aws.amazon.com/lambda/latest/dg/configuration-envvars.html#configuration-envvars-runtime).
 *
 * The Lambda bundles take this module in place of `@aws-sdk/credential-provider-node` (an esbuild alias set by
 * `RuntimeFunction`, infra/constructs/runtime-function.ts), whose `defaultProvider` every client's runtime
 * config uses when it is given no credentials. That chain tries the environment first (its first link is
 * `fromEnv`, unless AWS_PROFILE is set, which Lambda does not set), so in Lambda it ends there; its other links
 * (SSO, shared ini files, credential_process, web identity, the container and instance metadata endpoints)
 * bundle the SSO and STS clients and ~100 KB of code a function never runs. Local mode, the CLI and the tests
 * do not use the bundles and keep the whole chain.
 *
 * Lambda SnapStart hands credentials through the container endpoint instead of these variables
 * (https://docs.aws.amazon.com/lambda/latest/dg/snapstart-activate.html#snapstart-credentials); no function of
 * the runtime uses SnapStart, and if one did this provider would say which variables are missing rather than
 * sign with anything else.
 */
import { type FromEnvInit, fromEnv } from '@aws-sdk/credential-provider-env';

type CredentialProvider = ReturnType<typeof fromEnv>;

/** The variables Lambda sets from the execution role; its credentials are temporary, so all three. */
export const LAMBDA_CREDENTIAL_VARIABLES = [
  'AWS_ACCESS_KEY_ID',
  'AWS_SECRET_ACCESS_KEY',
  'AWS_SESSION_TOKEN',
] as const;

/** Raised when a credential variable Lambda sets is missing or empty: nothing is signed. */
export class LambdaCredentialsError extends Error {
  override readonly name = 'LambdaCredentialsError';
  readonly missing: readonly string[];
  constructor(missing: readonly string[]) {
    super(
      `no AWS credentials: ${missing.join(', ')} ${missing.length === 1 ? 'is' : 'are'} not set. ` +
        "Lambda sets them from the function's execution role; this bundle reads credentials from them only " +
        '(shared/runtime/aws/lambda-credentials.ts).',
    );
    this.missing = missing;
  }
}

/**
 * The SDK clients' default credential provider in a Lambda bundle (same name and signature as
 * `@aws-sdk/credential-provider-node`'s): the execution role's credentials from the environment, read on each
 * call as the SDK's `fromEnv` reads them, or a `LambdaCredentialsError` naming the missing variables.
 */
export function defaultProvider(init: FromEnvInit = {}): CredentialProvider {
  const fromVariables = fromEnv(init);
  return async () => {
    const missing = LAMBDA_CREDENTIAL_VARIABLES.filter((name) => !process.env[name]);
    if (missing.length > 0) throw new LambdaCredentialsError(missing);
    return fromVariables();
  };
}
