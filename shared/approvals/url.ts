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

/** The form action for an approval: `<base>/approvals/<approvalId>`, without the token. */
export function approvalPostUrl(baseUrl: string, approvalId: string): string {
  // encodeURIComponent keeps dots, and `.`/`..` as a path segment would resolve to another path.
  if (approvalId === '' || approvalId === '.' || approvalId === '..') {
    throw new ApprovalLinkError('approvalId cannot be a path segment', { approvalId });
  }
  return new URL(`approvals/${encodeURIComponent(approvalId)}`, parseBase(baseUrl)).toString();
}

/** The link sent to an approver: `GET <base>/approvals/<approvalId>?t=<token>`. */
export function approvalUrl(baseUrl: string, approvalId: string, token: string): string {
  const url = new URL(approvalPostUrl(baseUrl, approvalId));
  url.searchParams.set('t', token);
  return url.toString();
}
