/**
 * `guardedFetch`: fetch through the guard. Each hop is checked (URL, hosts, then addresses at dial time in a
 * dedicated undici Agent), redirects are followed here, credentials are re-injected per origin, and the
 * response is capped (decoded size, overall deadline, headers timeout, header size).
 */
import type { RequestInit as UndiciRequestInit, Response as UndiciResponse } from 'undici';
import type { BoundCredentialHeader } from '../core/ports.ts';
import { createGuardedAgent } from './connector.ts';
import {
  EgressDeniedError,
  type EgressErrorContext,
  EgressLimitError,
  EgressNetworkError,
} from './errors.ts';
import { type BoundCredential, bindCredentials, headersForHop, sanitizeHeaders } from './headers.ts';
import { capBody, type Deadline, markSent, startDeadline, toEgressError } from './limits.ts';
import { type EgressPolicy, type ResolvedPolicy, resolvePolicy } from './policy.ts';
import { BODY_HEADERS, type Hop, nextHop, REDIRECT_STATUSES } from './redirect.ts';
import { loadUndici } from './undici.ts';
import { checkTarget, parseTarget, redactUrl } from './url.ts';

/** `fetch` options plus the policy and the credential headers bound to their origins. */
export type GuardedFetchInit = RequestInit & {
  policy?: EgressPolicy;
  credentialHeaders?: BoundCredentialHeader[];
};

/** Methods the guard sends (CONNECT, TRACE and TRACK are refused). */
export const ALLOWED_METHODS: ReadonlySet<string> = new Set([
  'GET',
  'HEAD',
  'POST',
  'PUT',
  'PATCH',
  'DELETE',
  'OPTIONS',
]);

const NULL_BODY_STATUSES = new Set([204, 205, 304]);

/** Fetches a URL through the SSRF guard. Refusals throw `EgressDeniedError`, limits `EgressLimitError`. */
export async function guardedFetch(url: string | URL, init: GuardedFetchInit = {}): Promise<Response> {
  const { policy, credentialHeaders, ...request } = init;
  return fetchWithPolicy(url, request, resolvePolicy(policy), bindCredentials(credentialHeaders));
}

/** `guardedFetch` for an already resolved policy and bound credentials. */
export async function fetchWithPolicy(
  url: string | URL,
  init: RequestInit,
  policy: ResolvedPolicy,
  credentials: readonly BoundCredential[],
): Promise<Response> {
  const first = parseTarget(url);
  const method = (init.method ?? 'GET').toUpperCase();
  if (!ALLOWED_METHODS.has(method)) {
    throw new EgressDeniedError('method', { host: first.host, detail: `method ${method} is not allowed` });
  }
  if ((method === 'GET' || method === 'HEAD') && init.body != null) {
    throw new TypeError(`a ${method} request cannot have a body`);
  }
  const headers = sanitizeHeaders(init.headers, credentials);
  // Loaded before the deadline starts: the first request of a process must not spend its time budget on it.
  const { fetch: undiciFetch } = await loadUndici();
  const deadline = startDeadline(policy.totalTimeoutMs, init.signal, {
    host: first.host,
    url: redactUrl(first.url),
  });
  let hop: Hop = { url: first.url, method, body: init.body };
  try {
    for (let redirects = 0; ; redirects++) {
      const target = parseTarget(hop.url);
      checkTarget(target, policy);
      const context: EgressErrorContext = { host: target.host, url: redactUrl(target.url) };
      // Once a socket to the checked address is open the request may be received: a failure from then on
      // is "outcome unknown" for the caller, not "not sent" (see RequestDelivery in errors.ts).
      let connected = false;
      const agent = await createGuardedAgent(policy, undefined, () => {
        connected = true;
      });
      const release = once(() => void agent.destroy().catch(() => {}));
      let response: UndiciResponse;
      try {
        response = await undiciFetch(target.url, {
          method: hop.method,
          headers: [...headersForHop(headers, credentials, target.url.origin)],
          body: (hop.body ?? null) as Exclude<UndiciRequestInit['body'], undefined>,
          redirect: 'manual',
          signal: deadline.signal,
          dispatcher: agent,
        });
      } catch (error) {
        release();
        const mapped = toEgressError(error, deadline.signal, context);
        throw connected ? markSent(mapped, hop.method) : mapped;
      }
      const location = response.headers.get('location');
      if (init.redirect === 'manual' || !REDIRECT_STATUSES.has(response.status) || location === null) {
        return finalResponse(response, policy, deadline, release, context, redirects > 0, hop.method);
      }
      await response.body?.cancel().catch(() => {});
      release();
      if (init.redirect === 'error') {
        throw new EgressDeniedError('invalid_redirect', { ...context, detail: 'redirect mode is error' });
      }
      if (redirects >= policy.maxRedirects) {
        throw new EgressDeniedError('too_many_redirects', {
          ...context,
          detail: `limit is ${policy.maxRedirects}`,
        });
      }
      const next = nextHop(hop, response.status, location);
      if (next.bodyDropped) for (const name of BODY_HEADERS) headers.delete(name);
      // Fetch spec: a cross-origin redirect drops Authorization (credential headers are per hop anyway).
      if (next.url.origin !== target.url.origin) headers.delete('authorization');
      hop = next;
    }
  } catch (error) {
    deadline.clear();
    throw error;
  }
}

function finalResponse(
  response: UndiciResponse,
  policy: ResolvedPolicy,
  deadline: Deadline,
  release: () => void,
  context: EgressErrorContext,
  redirected: boolean,
  method: string,
): Response {
  const done = once(() => {
    deadline.clear();
    release();
  });
  // A caller that never reads the body still gets its socket closed when the deadline fires.
  deadline.signal.addEventListener('abort', done, { once: true });
  const { status } = response;
  const encoding = response.headers.get('content-encoding');
  const length = Number(response.headers.get('content-length') ?? Number.NaN);
  const tooLong = (encoding === null || encoding === 'identity') && length > policy.maxResponseBytes;
  if (tooLong || status < 200 || status > 599 || NULL_BODY_STATUSES.has(status)) {
    void response.body?.cancel().catch(() => {});
  }
  if (tooLong || status < 200 || status > 599) {
    done();
    // The request was answered: it was received, whatever its effect.
    if (tooLong)
      throw markSent(
        new EgressLimitError('response_too_large', { ...context, detail: `content-length ${length}` }),
        method,
      );
    throw markSent(new EgressNetworkError({ ...context, detail: `invalid status ${status}` }), method);
  }
  const source = NULL_BODY_STATUSES.has(status) ? null : (response.body as ReadableStream<Uint8Array> | null);
  const body =
    source === null ? null : capBody(source, policy.maxResponseBytes, deadline.signal, context, done, method);
  if (body === null) done();
  const result = new Response(body, {
    status,
    statusText: response.statusText,
    headers: [...response.headers],
  });
  Object.defineProperties(result, { url: { value: response.url }, redirected: { value: redirected } });
  return result;
}

function once(fn: () => void): () => void {
  let called = false;
  return () => {
    if (called) return;
    called = true;
    fn();
  };
}
