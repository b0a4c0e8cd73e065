/** The HTTP built-ins (fetch_url, http_request) for the action catalog. */
import type { BuiltinEntry } from '../catalog.ts';
import { type FetchUrlOptions, fetchUrlAction } from './fetch-url.ts';
import { type HttpRequestOptions, httpRequestAction } from './http-request.ts';

/** Options of the HTTP built-ins. */
export type HttpBuiltinOptions = FetchUrlOptions & HttpRequestOptions;

/** `fetch_url` and `http_request` as catalog entries (built per workflow: they check its credentials). */
export function httpBuiltins(options: HttpBuiltinOptions = {}): {
  fetch_url: BuiltinEntry;
  http_request: BuiltinEntry;
} {
  return {
    fetch_url: (definition) => fetchUrlAction(definition, options),
    http_request: (definition) => httpRequestAction(definition, options),
  };
}
