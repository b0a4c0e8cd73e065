/**
 * `guardedFetch`: fetch through the guard, on node:http. Each hop is checked (URL, hosts, then every address
 * of one resolution, dial.ts), dialled at the checked address on a socket of its own, redirects are followed
 * here, credentials are re-injected per origin, and the response is capped (decoded size, overall deadline,
 * headers timeout, header size).
 */
import type { IncomingMessage } from 'node:http';
import type { Socket } from 'node:net';
import type { BoundCredentialHeader } from '../core/ports.ts';
import { dialChecked } from './dial.ts';
import {
  EgressDeniedError,
  type EgressErrorContext,
  EgressLimitError,
  EgressNetworkError,
} from './errors.ts';
import { exchange } from './exchange.ts';
import { type BoundCredential, bindCredentials, headersForHop, sanitizeHeaders } from './headers.ts';
import { capBody, type Deadline, markSent, startDeadline, toEgressError } from './limits.ts';
import { type EgressPolicy, type ResolvedPolicy, resolvePolicy } from './policy.ts';
import {
  BODY_HEADERS,
  checkSendingRedirect,
  type Hop,
  nextHop,
  REDIRECT_STATUSES,
  sendsSomething,
} from './redirect.ts';
import { encodeBody } from './request-body.ts';
import { contentCodings, decodedBody, MAX_CONTENT_CODINGS } from './response-body.ts';
import { checkTarget, parseTarget, redactUrl } from './url.ts';

/** Request options the guard reads beyond `fetch`'s own. */
export type GuardRequestInit = RequestInit & {
  /**
   * Exact host names a redirect of a request that sends something (a method other than GET, HEAD and
   * OPTIONS, or a body) may lead to besides the request's own origin. Default none (redirect.ts).
   */
  unsafeRedirectHosts?: readonly string[];
};

/** `fetch` options plus the policy and the credential headers bound to their origins. */
export type GuardedFetchInit = GuardRequestInit & {
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
  init: GuardRequestInit,
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
  const deadline = startDeadline(policy.totalTimeoutMs, init.signal, {
    host: first.host,
    url: redactUrl(first.url),
  });
  let hop: Hop = { url: first.url, method, body: init.body };
  const sending = sendsSomething(method, init.body);
  // Once the first request was answered (a redirect is an answer) its receiver got it: whatever fails after
  // that (a refused or failed redirect, a later hop) ends a request that was sent, with the first request's
  // method, the one whose effect is in question (a later hop is the same method, or a GET made of it).
  let answered = false;
  try {
    for (let redirects = 0; ; redirects++) {
      const target = parseTarget(hop.url);
      checkTarget(target, policy);
      const context: EgressErrorContext = { host: target.host, url: redactUrl(target.url) };
      // Once a socket to the checked address is open the request may be received: a failure from then on
      // is "outcome unknown" for the caller, not "not sent" (see RequestDelivery in errors.ts).
      let connected = false;
      let socket: Socket | undefined;
      const release = once(() => socket?.destroy());
      let response: IncomingMessage;
      try {
        const body = await encodeBody(hop.body);
        socket = await dialChecked(target.url, target.host, target.port, policy, deadline.signal);
        connected = true;
        const hopHeaders = headersForHop(headers, credentials, target.url.origin);
        response = await exchange(
          socket,
          {
            url: target.url,
            method: hop.method,
            headers: hopHeaders,
            body,
            headersTimeoutMs: policy.headersTimeoutMs,
            maxHeaderBytes: policy.maxHeaderBytes,
            context,
          },
          deadline.signal,
        );
      } catch (error) {
        release();
        const mapped = toEgressError(error, deadline.signal, context);
        throw connected ? markSent(mapped, hop.method) : mapped;
      }
      answered = true;
      const location = headerValue(response, 'location');
      const status = response.statusCode ?? 0;
      if (init.redirect === 'manual' || !REDIRECT_STATUSES.has(status) || location === null) {
        return finalResponse(
          response,
          target.url,
          policy,
          deadline,
          release,
          context,
          redirects > 0,
          hop.method,
          method,
        );
      }
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
      const next = nextHop(hop, status, location);
      if (sending) checkSendingRedirect({ url: first.url, method }, next.url, init.unsafeRedirectHosts ?? []);
      if (next.bodyDropped) for (const name of BODY_HEADERS) headers.delete(name);
      // Fetch spec: a cross-origin redirect drops Authorization (credential headers are per hop anyway).
      if (next.url.origin !== target.url.origin) headers.delete('authorization');
      hop = next;
    }
  } catch (error) {
    deadline.clear();
    throw answered ? markSent(error, method) : error;
  }
}

function finalResponse(
  response: IncomingMessage,
  url: URL,
  policy: ResolvedPolicy,
  deadline: Deadline,
  release: () => void,
  context: EgressErrorContext,
  redirected: boolean,
  method: string,
  sentMethod: string,
): Response {
  const done = once(() => {
    deadline.clear();
    release();
  });
  // A caller that never reads the body still gets its socket closed when the deadline fires.
  deadline.signal.addEventListener('abort', done, { once: true });
  const status = response.statusCode ?? 0;
  const encoding = headerValue(response, 'content-encoding');
  const length = Number(headerValue(response, 'content-length') ?? Number.NaN);
  const tooLong = (encoding === null || encoding === 'identity') && length > policy.maxResponseBytes;
  const codings = contentCodings(encoding);
  if (tooLong || codings.length > MAX_CONTENT_CODINGS || status < 200 || status > 599) {
    done();
    // The request was answered: it was received, whatever its effect.
    if (codings.length > MAX_CONTENT_CODINGS)
      throw markSent(
        new EgressLimitError('too_many_encodings', {
          ...context,
          detail: `${codings.length} content codings, at most ${MAX_CONTENT_CODINGS}`,
        }),
        sentMethod,
      );
    if (tooLong)
      throw markSent(
        new EgressLimitError('response_too_large', { ...context, detail: `content-length ${length}` }),
        sentMethod,
      );
    throw markSent(new EgressNetworkError({ ...context, detail: `invalid status ${status}` }), sentMethod);
  }
  const bodyless = NULL_BODY_STATUSES.has(status) || method === 'HEAD';
  const body = bodyless
    ? null
    : capBody(
        decodedBody(response, codings, policy.maxResponseBytes, context),
        policy.maxResponseBytes,
        deadline.signal,
        context,
        done,
        sentMethod,
      );
  if (body === null) done();
  const result = new Response(body, {
    status,
    statusText: reasonPhrase(response.statusMessage),
    headers: responseHeaders(response.rawHeaders),
  });
  const final = new URL(url);
  final.hash = '';
  Object.defineProperties(result, { url: { value: final.href }, redirected: { value: redirected } });
  return result;
}

/** One response header, repeated values joined as fetch joins them; `null` when absent. */
function headerValue(response: IncomingMessage, name: string): string | null {
  const value = response.headers[name];
  if (value === undefined) return null;
  return Array.isArray(value) ? value.join(', ') : value;
}

/** The response's headers in received order (Set-Cookie kept as separate values). */
function responseHeaders(raw: readonly string[]): Headers {
  const headers = new Headers();
  for (let index = 0; index + 1 < raw.length; index += 2) {
    try {
      headers.append(raw[index]!, raw[index + 1]!);
    } catch {
      // node:http's strict parser has already refused malformed header lines; nothing valid is skipped.
    }
  }
  return headers;
}

/** The reason phrase when fetch's Response accepts it (visible ASCII, tabs, spaces, obs-text), else ''. */
function reasonPhrase(message: string | undefined): string {
  return message !== undefined && /^[\t\x20-\x7e\x80-\xff]*$/.test(message) ? message : '';
}

function once(fn: () => void): () => void {
  let called = false;
  return () => {
    if (called) return;
    called = true;
    fn();
  };
}
