/**
 * Response headers for every approval page (render and result). The CSP allows no script, no external
 * resource and no framing; forms may only post back to the same origin. `no-referrer` because the page
 * URL carries the link token; `no-store` so a shared machine's cache keeps neither token nor arguments.
 */
export const APPROVAL_PAGE_HEADERS = {
  'Content-Type': 'text/html; charset=utf-8',
  'Content-Security-Policy':
    "default-src 'none'; style-src 'unsafe-inline'; form-action 'self'; frame-ancestors 'none'; base-uri 'none'",
  'Referrer-Policy': 'no-referrer',
  'Cache-Control': 'no-store',
  'X-Robots-Tag': 'noindex, nofollow',
  'X-Content-Type-Options': 'nosniff',
  'X-Frame-Options': 'DENY',
} as const;
