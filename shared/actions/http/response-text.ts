/**
 * Turning an HTTP response into tool-result text: which headers the model sees, whether a body is text,
 * and the character cap (said in the result when it cuts).
 */
import { cutText } from '../../core/byte-caps.ts';
import type { EgressResponse } from '../../core/ports.ts';

/** Default cap on the body text a tool result carries. */
export const DEFAULT_MAX_TEXT_CHARS = 20_000;

/**
 * Response headers worth showing: content description, redirects, rate limits and caching. Cookies and
 * anything else a server sets are left out (they are session material, and noise for the model).
 */
export const SHOWN_RESPONSE_HEADERS = [
  'content-type',
  'content-length',
  'content-language',
  'location',
  'retry-after',
  'etag',
  'last-modified',
  'www-authenticate',
  'x-ratelimit-limit',
  'x-ratelimit-remaining',
  'x-ratelimit-reset',
] as const;

/** How a response body is shown: reduced HTML, text, or not at all. */
export type BodyKind = 'html' | 'text' | 'binary';

const TEXT_TYPES = new Set([
  'application/json',
  'application/xml',
  'application/javascript',
  'application/ecmascript',
  'application/x-www-form-urlencoded',
  'application/yaml',
  'application/x-yaml',
  'application/toml',
  'application/graphql',
  'application/x-ndjson',
  'application/csv',
  'application/sql',
]);

/** The media type of a Content-Type value, lower-cased, without parameters. */
export const mediaTypeOf = (contentType: string | undefined): string =>
  (contentType ?? '').split(';')[0]!.trim().toLowerCase();

/** What a body is, from its Content-Type or, when there is none, from its first characters. */
export function bodyKind(contentType: string | undefined, body: string): BodyKind {
  const type = mediaTypeOf(contentType);
  if (type === 'text/html' || type === 'application/xhtml+xml') return 'html';
  if (type.startsWith('text/') || TEXT_TYPES.has(type) || /^application\/[\w.-]+\+(json|xml)$/.test(type)) {
    return looksBinary(body) ? 'binary' : 'text';
  }
  if (type !== '') return 'binary';
  if (looksBinary(body)) return 'binary';
  return /^\s*(<!doctype html|<html[\s>])/i.test(body.slice(0, 1024)) ? 'html' : 'text';
}

/**
 * True when decoded text is evidently not text: a NUL, or many U+FFFD replacement characters (the egress
 * port decodes as UTF-8, so binary data comes back full of them).
 */
export function looksBinary(body: string): boolean {
  const sample = body.slice(0, 4096);
  if (sample.includes('\u0000')) return true;
  let replaced = 0;
  for (const char of sample) if (char === '\uFFFD') replaced += 1;
  return sample.length > 0 && replaced / sample.length > 0.05;
}

/**
 * Cuts `text` to at most `max` characters (UTF-16 units), never inside an emoji or other surrogate pair, and
 * says how many it kept.
 */
export function capText(text: string, max: number): string {
  if (text.length <= max) return text;
  const kept = cutText(text, max);
  return `${kept}\n[truncated: showing the first ${kept.length} of ${text.length} characters]`;
}

/** `name: value` lines of the shown headers present in the response. */
export function shownHeaders(headers: Record<string, string>): string {
  return SHOWN_RESPONSE_HEADERS.flatMap((name) =>
    headers[name] === undefined ? [] : [`${name}: ${headers[name]}`],
  ).join('\n');
}

/** `HTTP <status>`, the shown headers, a blank line and the body text (capped); an error from 400 on. */
export function httpResultText(
  response: EgressResponse,
  maxChars: number,
): { content: string; isError: boolean } {
  const kind = bodyKind(response.headers['content-type'], response.body);
  const body =
    kind === 'binary'
      ? `[binary body of ${response.body.length} characters (${mediaTypeOf(response.headers['content-type']) || 'no content-type'}), not shown]`
      : capText(response.body, maxChars);
  const head = [`HTTP ${response.status}`, shownHeaders(response.headers)].filter(Boolean).join('\n');
  return { content: `${head}\n\n${body}`, isError: response.status >= 400 };
}
