/**
 * The deployed functions, run in process the way Lambda runs them: each handler module (functions/*.ts) is
 * loaded fresh (its own composition root, as in its own container), with exactly the environment the
 * synthesized template gives that function, plus endpoints that send its AWS calls to DynamoDB Local and
 * to the loopback stand-in (fake-aws.ts), and `WF_AWS_CALL_LOG` so every call is recorded.
 */
import { vi } from 'vitest';
import type { HandlerName } from '../../infra/constructs/state-names.ts';
import { AWS_CALL_LOG_ENV, withFunctionName } from '../../shared/runtime/aws-call-recorder.ts';
import type { StackPolicies } from './policies.ts';

type Handler = (event: unknown, context?: unknown) => Promise<unknown>;

export type Lambdas = {
  /**
   * `env` overrides the function's environment for this invocation (e.g. the API's auth kind). A function is
   * loaded once per `env` (its own container, as a deployment with that environment would run it): what its
   * composition reads once, at its first invocation (the API's authenticator), follows `env`.
   */
  invoke(fn: HandlerName, event: unknown, env?: Record<string, string>): Promise<unknown>;
  /**
   * Runs `work` as part of `fn` (its environment, its name on the recorded calls), with modules loaded fresh:
   * for driving one composition module of a function (e.g. its credential reads) without a whole flow.
   */
  within<T>(fn: HandlerName, work: () => Promise<T>): Promise<T>;
  restore(): void;
};

export function lambdas(
  policies: StackPolicies,
  endpoints: { dynamodb: string; aws: string; anthropic: string; callLog: string },
): Lambdas {
  const original = { ...process.env };
  /** By function and environment overrides (`lambdas.invoke`). */
  const handlers = new Map<string, Handler>();
  const setEnv = (env: Record<string, string | undefined>) => {
    for (const key of Object.keys(process.env)) if (!(key in env)) delete process.env[key];
    for (const [key, value] of Object.entries(env)) if (value !== undefined) process.env[key] = value;
  };
  const enter = (fn: HandlerName, env: Record<string, string>) => {
    const identity = policies.functionIdentity(fn);
    setEnv({
      PATH: original.PATH,
      HOME: original.HOME,
      TZ: original.TZ,
      ...identity.environment,
      // The bundle's compiled-in values (the approver declarations), read from the process unbundled.
      ...identity.bundledConstants,
      AWS_REGION: policies.resolved.region,
      AWS_ACCESS_KEY_ID: 'iamsim',
      AWS_SECRET_ACCESS_KEY: 'iamsim',
      AWS_LAMBDA_FUNCTION_NAME: fn,
      AWS_ENDPOINT_URL: endpoints.aws,
      AWS_ENDPOINT_URL_DYNAMODB: endpoints.dynamodb,
      ANTHROPIC_BASE_URL: endpoints.anthropic,
      [AWS_CALL_LOG_ENV]: endpoints.callLog,
      // This process's own NODE_OPTIONS (vitest's), not a Lambda's.
      NODE_OPTIONS: original.NODE_OPTIONS,
      ...env,
    });
  };
  return {
    async invoke(fn, event, env = {}) {
      enter(fn, env);
      const container = `${fn} ${JSON.stringify(env)}`;
      let handler = handlers.get(container);
      if (!handler) {
        vi.resetModules();
        const loaded = (await import(`../../functions/${fn}.ts`)) as { handler: Handler };
        handler = loaded.handler;
        handlers.set(container, handler);
      }
      const run = handler;
      return withFunctionName(fn, () => run(event, { functionName: fn, awsRequestId: 'iam-sim' }));
    },
    async within(fn, work) {
      enter(fn, {});
      vi.resetModules();
      return withFunctionName(fn, work);
    },
    restore: () => setEnv(original),
  };
}

/** An API Gateway (HTTP API, payload 2.0) event; `iam` is the SigV4 caller IAM authorization verified. */
export function httpEvent(
  method: string,
  url: string,
  options: {
    body?: string;
    headers?: Record<string, string>;
    iam?: { accountId: string; userArn: string };
    /** Claims a JWT authorizer verified. */
    jwt?: Record<string, string>;
  } = {},
) {
  const parsed = new URL(url);
  return {
    version: '2.0',
    routeKey: '$default',
    rawPath: parsed.pathname,
    rawQueryString: parsed.search.slice(1),
    headers: { host: parsed.host, ...options.headers },
    requestContext: {
      accountId: '123456789012',
      apiId: 'a1b2c3d4e5',
      domainName: parsed.host,
      http: {
        method,
        path: parsed.pathname,
        protocol: 'HTTP/1.1',
        sourceIp: '203.0.113.9',
        userAgent: 'iam-sim',
      },
      requestId: 'iam-sim',
      routeKey: '$default',
      stage: '$default',
      time: '01/Dec/2026:12:00:00 +0000',
      timeEpoch: 0,
      ...(options.iam
        ? {
            authorizer: {
              iam: {
                ...options.iam,
                accessKey: 'AKIA',
                caller: 'c',
                principalOrgId: null,
                userId: 'u',
                cognitoIdentity: null,
              },
            },
          }
        : {}),
      ...(options.jwt ? { authorizer: { jwt: { claims: options.jwt, scopes: null } } } : {}),
    },
    ...(options.body === undefined ? {} : { body: options.body }),
    isBase64Encoded: false,
  };
}
