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
import type { ConsoleApi } from './deps.ts';

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
      if (!sameToken(key, args.token)) return undefined;
      const me = await api({ owner: '-', principal: '-' }, 'GET', '/v1/me');
      return me.status === 200 ? (me.body as Identity) : undefined;
    },
    sessions: sessionTable(args.clock),
    clock: args.clock,
    origin: args.origin,
    keyHint: 'The sign-in token `wf console --aws` printed on your terminal',
  });
}
