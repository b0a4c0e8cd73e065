/**
 * Cross-site refusal for the decision `POST`. The signed link in the form is the credential, but a page on
 * another site that learned a link (or, locally, that reached the stack through DNS rebinding) must not be able
 * to submit a decision from the approver's browser. Browsers send `Origin` on every POST and `Sec-Fetch-Site`
 * on every request (https://fetch.spec.whatwg.org/#origin-header,
 * https://www.w3.org/TR/fetch-metadata/#sec-fetch-site-header): a decision is accepted only when they say the
 * form came from the approval page's own origin. A request with neither header is not from a browser (a CLI,
 * the demo's auto-approve) and is judged by the link and nonce alone, as before.
 */

/** Why a decision request was refused as cross-site, or undefined when it may proceed. */
export type CrossSiteReason = 'origin_mismatch' | 'cross_site_fetch';

/** The origin (`scheme://host[:port]`) that decision forms are served from, from the public base URL. */
export function pageOrigin(publicBaseUrl: string): string {
  return new URL(publicBaseUrl).origin;
}

/**
 * Checks a decision request's `Origin` and `Sec-Fetch-Site` against `expectedOrigin`.
 * - `Sec-Fetch-Site`, when present, must be `same-origin`.
 * - `Origin`, when present, must be `expectedOrigin`, except `null` next to `Sec-Fetch-Site: same-origin`: the
 *   approval pages send `Referrer-Policy: no-referrer`, under which browsers serialize the origin of a
 *   same-origin form POST as `null` (https://fetch.spec.whatwg.org/#serializing-a-request-origin), while
 *   `Sec-Fetch-Site` still tells the truth. Without fetch metadata, `Origin: null` is refused.
 */
export function crossSiteReason(
  headers: { get(name: string): string | null },
  expectedOrigin: string,
): CrossSiteReason | undefined {
  const site = headers.get('sec-fetch-site')?.trim().toLowerCase();
  if (site !== undefined && site !== 'same-origin') return 'cross_site_fetch';
  const origin = headers.get('origin')?.trim().toLowerCase();
  if (origin === undefined || origin === expectedOrigin.toLowerCase()) return undefined;
  return origin === 'null' && site === 'same-origin' ? undefined : 'origin_mismatch';
}
