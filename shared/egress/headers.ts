/**
 * Request headers: caller-supplied headers are untrusted (they may come from the model) and lose every
 * hop-by-hop, routing, cookie and proxy header; credential headers are injected per hop, only for the
 * origin they are bound to.
 */
import type { BoundCredentialHeader } from '../core/ports.ts';
import { EgressPolicyError } from './errors.ts';

/** Header names a caller may never set (compared lower-case). */
export const FORBIDDEN_REQUEST_HEADERS: ReadonlySet<string> = new Set([
  'host',
  'forwarded',
  'cookie',
  'cookie2',
  'proxy-authorization',
  'connection',
  'keep-alive',
  'transfer-encoding',
  'te',
  'trailer',
  'upgrade',
  'expect',
  'content-length',
  'via',
  'x-real-ip',
  'x-client-ip',
  'true-client-ip',
]);

/** Header-name prefixes a caller may never set. */
export const FORBIDDEN_REQUEST_HEADER_PREFIXES = ['x-forwarded-', 'proxy-'] as const;

/** A credential header with its origin in canonical form (`https://api.example.com`). */
export type BoundCredential = { origin: string; name: string; value: string };

/** True when a caller-supplied header of this name is dropped. */
export function isForbiddenRequestHeader(name: string): boolean {
  const lower = name.toLowerCase();
  return (
    FORBIDDEN_REQUEST_HEADERS.has(lower) || FORBIDDEN_REQUEST_HEADER_PREFIXES.some((p) => lower.startsWith(p))
  );
}

/** Validates bound credentials and canonicalises their origins. Throws `EgressPolicyError`. */
export function bindCredentials(list: readonly BoundCredentialHeader[] = []): BoundCredential[] {
  return list.map(({ origin, name, value }) => {
    let url: URL;
    try {
      url = new URL(origin);
    } catch {
      throw new EgressPolicyError('credentialHeaders', `origin ${JSON.stringify(origin)} is not a URL`);
    }
    const bare =
      url.pathname === '/' &&
      url.search === '' &&
      url.hash === '' &&
      url.username === '' &&
      url.password === '';
    if ((url.protocol !== 'https:' && url.protocol !== 'http:') || !bare) {
      throw new EgressPolicyError(
        'credentialHeaders',
        `origin ${JSON.stringify(origin)} is not a bare http(s) origin`,
      );
    }
    if (isForbiddenRequestHeader(name)) {
      throw new EgressPolicyError('credentialHeaders', `${name} cannot carry a credential`);
    }
    new Headers([[name, value]]); // throws TypeError on an invalid name or a value with CR/LF
    return { origin: url.origin, name: name.toLowerCase(), value };
  });
}

/**
 * The caller's headers minus forbidden ones, minus any that collide with a credential header name, and
 * minus `Authorization` when a credential is bound (the bound credential is the only authentication).
 */
export function sanitizeHeaders(
  init: HeadersInit | undefined,
  credentials: readonly BoundCredential[],
): Headers {
  const headers = new Headers(init);
  const bound = new Set(credentials.map((c) => c.name));
  if (credentials.length > 0) bound.add('authorization');
  for (const name of [...headers.keys()]) {
    if (isForbiddenRequestHeader(name) || bound.has(name)) headers.delete(name);
  }
  return headers;
}

/** The headers of one hop: the sanitised headers plus the credentials bound to exactly this origin. */
export function headersForHop(
  base: Headers,
  credentials: readonly BoundCredential[],
  origin: string,
): Headers {
  const headers = new Headers(base);
  for (const credential of credentials) {
    if (credential.origin === origin) headers.set(credential.name, credential.value);
  }
  return headers;
}
