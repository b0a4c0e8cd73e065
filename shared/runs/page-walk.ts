/** A client's walk over a paged API listing: one page after another, following `nextToken` until none. */

/**
 * Fetches `path` page by page with `get` (the query `?nextToken=…` added from the second on, or from the first
 * when `from` names where to start), handing each to `take`.
 */
export async function walkPages<Page extends { nextToken?: string }>(
  path: string,
  get: (path: string) => Promise<Page>,
  take: (page: Page) => void,
  from?: string,
): Promise<void> {
  let token: string | undefined = from;
  do {
    const query = token === undefined ? '' : `?nextToken=${encodeURIComponent(token)}`;
    const page = await get(`${path}${query}`);
    take(page);
    token = page.nextToken;
  } while (token !== undefined);
}
