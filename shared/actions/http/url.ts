/** The URL field of the HTTP built-ins: an absolute http(s) URL (the egress guard checks the rest). */
import * as z from 'zod';

/** Cap on a URL's length. */
export const MAX_URL_CHARS = 4096;

/** An absolute http(s) URL. */
export const HttpUrlInput = z
  .string()
  .max(MAX_URL_CHARS)
  .refine((value) => {
    try {
      const url = new URL(value);
      return url.protocol === 'http:' || url.protocol === 'https:';
    } catch {
      return false;
    }
  }, 'must be an absolute http:// or https:// URL');
