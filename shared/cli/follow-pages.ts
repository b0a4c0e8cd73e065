/**
 * A filtered listing's page can be empty and still have a `nextToken`: the API stops reading at a budget
 * (shared/store/reads.ts, docs/api.md#pagination). The CLI follows such pages, up to FOLLOW_PAGES of them,
 * until one holds something, and says so when it stops with more to read rather than print "none".
 */
import type { ApiClient } from './client.ts';

/** How many pages a listing command reads at most to find something to show. */
export const FOLLOW_PAGES = 5;

export type ListPage<T> = { items: T[]; nextToken?: string };

/** The first page of `path` that holds items, or the last one read (empty, maybe with a `nextToken`). */
export async function firstFilledPage<T>(client: ApiClient, path: string): Promise<ListPage<T>> {
  let page = await client.get<ListPage<T>>(path);
  for (let read = 1; page.items.length === 0 && page.nextToken !== undefined && read < FOLLOW_PAGES; read++) {
    const url = new URL(path, 'http://wf.invalid');
    url.searchParams.set('nextToken', page.nextToken);
    page = await client.get<ListPage<T>>(`${url.pathname}${url.search}`);
  }
  return page;
}

/** What an empty listing prints: "none", or, when pages remain unread, that more may follow. */
export const noneLine = (none: string, page: ListPage<unknown>): string =>
  page.nextToken === undefined
    ? none
    : `${none} on the first ${FOLLOW_PAGES} pages; more may follow (--json shows the nextToken)`;
