import { ApprovalLinkError } from './errors.ts';

const LOOPBACK = new Set(['localhost', '127.0.0.1', '[::1]']);

/** The base URL as a URL ending in `/`, so that a stage path (`/prod`) is kept. https only, except loopback. */
function parseBase(baseUrl: string): URL {
  let url: URL;
  try {
    url = new URL(baseUrl);
  } catch (cause) {
    throw new ApprovalLinkError('approval base URL is not a URL', { baseUrl }, { cause });
  }
  const secure = url.protocol === 'https:' || (url.protocol === 'http:' && LOOPBACK.has(url.hostname));
  if (!secure)
    throw new ApprovalLinkError('approval base URL must use https (http only on loopback)', { baseUrl });
  if (url.search !== '' || url.hash !== '' || url.username !== '' || url.password !== '') {
    throw new ApprovalLinkError('approval base URL must not carry a query, fragment or credentials', {
      baseUrl,
    });
  }
  if (!url.pathname.endsWith('/')) url.pathname = `${url.pathname}/`;
  return url;
}

/** Where signed pages live under the base URL: approvals and human tasks. */
export type PageCollection = 'approvals' | 'human-tasks';

/** The form action of a signed page: `<base>/<collection>/<id>`, without the token. */
export function pagePostUrl(baseUrl: string, collection: PageCollection, id: string): string {
  // encodeURIComponent keeps dots, and `.`/`..` as a path segment would resolve to another path.
  if (id === '' || id === '.' || id === '..') {
    throw new ApprovalLinkError('the id cannot be a path segment', { id });
  }
  return new URL(`${collection}/${encodeURIComponent(id)}`, parseBase(baseUrl)).toString();
}

/** The link sent to a holder: `GET <base>/<collection>/<id>?t=<token>`. */
export function pageUrl(baseUrl: string, collection: PageCollection, id: string, token: string): string {
  const url = new URL(pagePostUrl(baseUrl, collection, id));
  url.searchParams.set('t', token);
  return url.toString();
}

/** The form action for an approval: `<base>/approvals/<approvalId>`, without the token. */
export const approvalPostUrl = (baseUrl: string, approvalId: string): string =>
  pagePostUrl(baseUrl, 'approvals', approvalId);

/** The link sent to an approver: `GET <base>/approvals/<approvalId>?t=<token>`. */
export const approvalUrl = (baseUrl: string, approvalId: string, token: string): string =>
  pageUrl(baseUrl, 'approvals', approvalId, token);
