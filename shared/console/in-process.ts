/**
 * The local console's API port: requests to the API app in the same process, made as the signed-in owner.
 * The identity rides on the Request object itself (a WeakMap entry), so it cannot be presented over the
 * network: a request from a socket is a different object and is judged by the real authenticator alone.
 */
import type { Authenticator, Identity } from '../api/deps.ts';
import type { ApiAnswer, ConsoleApi } from './deps.ts';

export type InProcessApi = {
  /** Wraps the API's authenticator: requests the console made carry their identity; others are unchanged. */
  authenticator: Authenticator;
  /** The console's port, once the API app (built with `authenticator`) exists. */
  connect(fetchApi: (request: Request) => Response | Promise<Response>): ConsoleApi;
};

export function inProcessApi(inner: Authenticator): InProcessApi {
  const identities = new WeakMap<Request, Identity>();
  return {
    authenticator: {
      authenticate: (request, env) => identities.get(request) ?? inner.authenticate(request, env),
    },
    connect: (fetchApi) => async (identity, method, path) => {
      const request = new Request(`http://in-process${path}`, {
        method,
        headers: { accept: 'application/json' },
      });
      identities.set(request, identity);
      const response = await fetchApi(request);
      const text = await response.text();
      return { status: response.status, body: text ? (JSON.parse(text) as unknown) : undefined } as ApiAnswer;
    },
  };
}
