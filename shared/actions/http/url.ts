/** The URL field of the HTTP built-ins: an absolute http(s) URL (the egress guard checks the rest). */
import * as z from '../../zod.ts';

/** Cap on a URL's length. */
export const MAX_URL_CHARS = 4096;

/** An absolute http(s) URL. */
export const HttpUrlInput = z.string().check(
  z.maxLength(MAX_URL_CHARS),
  z.refine((value) => {
    try {
      const url = new URL(value);
      return url.protocol === 'http:' || url.protocol === 'https:';
    } catch {
      return false;
    }
  }, 'must be an absolute http:// or https:// URL'),
);
