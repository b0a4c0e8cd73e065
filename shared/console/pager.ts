/**
 * Paging through the API's lists: the API's `nextToken` rides in the console's own URL as `after`, and a
 * "Next" link carries it with the page's filters. The token is passed back to the API unchanged, which checks
 * it belongs to the caller's listing (shared/api/pagination.ts): a forged one is the API's 400.
 */
import { html } from 'hono/html';

/** The `nextToken` to ask the API for, from the console URL's `after` (absent on the first page). */
export const afterOf = (query: URLSearchParams): string | undefined => {
  const token = query.get('after');
  return token === null || token === '' ? undefined : token;
};

/** A "Next" link to `path` with `filters` and `after=nextToken`, or nothing on the last page. */
export function nextLink(
  path: string,
  filters: Record<string, string | undefined>,
  nextToken: string | undefined,
) {
  if (nextToken === undefined) return '';
  const params = new URLSearchParams();
  for (const [name, value] of Object.entries(filters))
    if (value !== undefined && value !== '') params.set(name, value);
  params.set('after', nextToken);
  return html`<p class="pager"><a id="next" rel="next" href="${path}?${params.toString()}">Next</a></p>`;
}

/**
 * What an empty page says. A page with a `nextToken` is not the end: the API stops reading a filtered listing
 * at a budget (shared/store/reads.ts), and the runs page filters by kind within a page, so an empty page can
 * have more behind it.
 */
export function noneHere(nothing: string, nextToken: string | undefined) {
  return nextToken === undefined
    ? html`<p>${nothing}</p>`
    : html`<p id="none-here">None on this page; more may follow (Next).</p>`;
}
