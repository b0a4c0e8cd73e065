/**
 * Redirects, followed by the guard itself (the HTTP client never follows one): the next hop's URL, method
 * and body per the fetch spec. Every hop is then checked from scratch by the caller.
 */
import { EgressDeniedError } from './errors.ts';
import { normalizeHost } from './hosts.ts';
import { redactUrl } from './url.ts';

/** Statuses the guard follows. */
export const REDIRECT_STATUSES: ReadonlySet<number> = new Set([301, 302, 303, 307, 308]);

/** One request of the chain. */
export type Hop = { url: URL; method: string; body: BodyInit | null | undefined };

/** Request-body headers dropped when a redirect turns the request into a GET. */
export const BODY_HEADERS = [
  'content-type',
  'content-encoding',
  'content-language',
  'content-location',
] as const;

/**
 * The hop a redirect leads to: 303 (except HEAD), and 301/302 after POST, become GET without a body;
 * 307/308 keep method and body (a stream body cannot be replayed and is refused).
 */
export function nextHop(current: Hop, status: number, location: string): Hop & { bodyDropped: boolean } {
  let url: URL;
  try {
    url = new URL(location, current.url);
  } catch (cause) {
    throw new EgressDeniedError(
      'invalid_redirect',
      { host: current.url.hostname, url: redactUrl(current.url), detail: 'unparseable Location' },
      cause,
    );
  }
  const toGet =
    (status === 303 && current.method !== 'HEAD') ||
    ((status === 301 || status === 302) && current.method === 'POST');
  if (toGet) return { url, method: 'GET', body: undefined, bodyDropped: true };
  if (current.body instanceof ReadableStream) {
    throw new EgressDeniedError('invalid_redirect', {
      host: url.hostname,
      url: redactUrl(url),
      detail: `cannot replay a stream body on a ${status}`,
    });
  }
  return { url, method: current.method, body: current.body, bodyDropped: false };
}

/** Methods that only read (RFC 9110 §9.2.1 safe methods; the guard refuses TRACE). */
const READ_METHODS: ReadonlySet<string> = new Set(['GET', 'HEAD', 'OPTIONS']);

/** True when a request sends something: a method that is not a read, or any body. */
export function sendsSomething(method: string, body: BodyInit | null | undefined): boolean {
  return !READ_METHODS.has(method) || body != null;
}

/**
 * A request that sends something was checked (and, when it publishes, approved) for its own destination:
 * no redirect may carry it, its body or its caller headers (even as the GET a 301/302/303 makes of it) to
 * another origin, unless the caller names the new host in `hosts` (exact names: an internal call may move
 * among the deployment's internal hosts). Throws `redirect_off_origin` naming the Location's host.
 */
export function checkSendingRedirect(
  first: { url: URL; method: string },
  next: URL,
  hosts: readonly string[],
): void {
  if (next.origin === first.url.origin) return;
  const host = normalizeHost(next.hostname);
  if (hosts.some((allowed) => normalizeHost(allowed) === host)) return;
  throw new EgressDeniedError('redirect_off_origin', {
    host: next.hostname,
    url: redactUrl(next),
    detail: `a ${first.method} to ${first.url.origin} is not followed to another origin`,
  });
}
