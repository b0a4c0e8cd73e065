/**
 * The console for a deployed stack, served on the operator's own machine (like `kubectl proxy`): pages are
 * drawn from the deployed API, each call signed with the operator's AWS credentials (SigV4, as `wf --aws`
 * does, shared/cli/client.ts). Nothing new is exposed publicly: the server listens on loopback, answers only
 * loopback host names, and opens a session only for the random token printed on the operator's terminal.
 */
import { randomBytes, timingSafeEqual } from 'node:crypto';
import type { Identity } from '../api/deps.ts';
import type { ApiClient } from '../cli/client.ts';
import { ApiError } from '../cli/client.ts';
import type { Clock } from '../core/ports.ts';
import { sessionTable } from '../local/sessions.ts';
import { createConsoleApp } from './app.ts';
import { type ConsoleApi, ConsoleApiError, SignInUnavailableError } from './deps.ts';

/** The API port over a signing client: its answers (errors included) become `{ status, body }`. */
export function signedApi(client: ApiClient): ConsoleApi {
  return async (_identity, method, path) => {
    try {
      return await client.request(method, path);
    } catch (error) {
      if (!(error instanceof ApiError)) throw error;
      const fields = error.fields.length > 0 ? { fields: error.fields } : {};
      return {
        status: error.status,
        body: { error: { code: error.code, message: error.message, ...fields } },
      };
    }
  };
}

/**
 * Why `GET /v1/me` was refused, as the API or API Gateway said it. A 401 from API Gateway (`Unauthorized`)
 * is what a JWT authorizer answers a request without a bearer token: `wf console --aws` signs with SigV4
 * only, so it needs a stack deployed with `apiAuth=iam` (the default; docs/console.md).
 */
function refusalReason(baseUrl: string, me: { status: number; body: unknown }): string {
  // signedApi has put API Gateway's own `{ message }` and `x-amzn-errortype` in the API's error shape.
  const error = new ConsoleApiError(me.status, me.body);
  const jwt =
    me.status === 401
      ? ' wf console --aws signs requests with AWS credentials (IAM); a stack deployed with -c apiAuth=jwt takes only bearer tokens, so the console needs apiAuth=iam (the default).'
      : '';
  return `the API at ${baseUrl} refused GET /v1/me: ${error.message} (${error.code ?? 'no code'}, HTTP ${me.status}).${jwt}`;
}

/** A fresh sign-in token for one `wf console --aws` process. */
export const newConsoleToken = () => randomBytes(24).toString('base64url');

const sameToken = (a: string, b: string) => {
  const left = Buffer.from(a);
  const right = Buffer.from(b);
  return left.length === right.length && timingSafeEqual(left, right);
};

export function awsConsoleApp(args: { client: ApiClient; token: string; clock: Clock; origin: string }) {
  const api = signedApi(args.client);
  return createConsoleApp({
    api,
    // The token proves the browser belongs to whoever started the proxy; the owner is whoever AWS says.
    login: async (key) => {
      // Only a wrong token is "not accepted"; with the right one, a failing /v1/me says why.
      if (!sameToken(key, args.token)) return undefined;
      let me: Awaited<ReturnType<ConsoleApi>>;
      try {
        me = await api({ owner: '-', principal: '-' }, 'GET', '/v1/me');
      } catch (error) {
        throw new SignInUnavailableError(
          `the API at ${args.client.baseUrl} could not be asked who you are: ${(error as Error).message}`,
        );
      }
      if (me.status === 200) return me.body as Identity;
      throw new SignInUnavailableError(refusalReason(args.client.baseUrl, me));
    },
    sessions: sessionTable(args.clock),
    clock: args.clock,
    origin: args.origin,
    keyHint: 'The sign-in token `wf console --aws` printed on your terminal',
  });
}
