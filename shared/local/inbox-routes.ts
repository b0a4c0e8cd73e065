/**
 * `/local/inbox`: the local approval inbox, owner-fenced. It lists live approval links, so it answers only an
 * authenticated owner, and only with that owner's notices:
 * - `Authorization: Bearer <api key>` (a CLI, a script), or
 * - a browser session: `POST /local/session` with the key (same-origin form) sets an HttpOnly, SameSite=Strict
 *   cookie; `POST /local/session/end` signs out.
 * Without either, the inbox shows a sign-in form and no notices.
 */
import { Hono } from 'hono';
import { bodyLimit } from 'hono/body-limit';
import { deleteCookie, getCookie, setCookie } from 'hono/cookie';
import type { Authenticator } from '../api/deps.ts';
import { APPROVAL_PAGE_HEADERS } from '../approvals/index.ts';
import { crossSiteReason } from '../approvals-http/same-origin.ts';
import type { Clock } from '../core/ports.ts';
import { type InboxNotifier, renderInbox, renderInboxSignIn } from '../notify/index.ts';
import { SESSION_COOKIE, type SessionTable } from './sessions.ts';

export type InboxRoutesDeps = {
  inbox: InboxNotifier;
  clock: Clock;
  authenticator: Authenticator;
  sessions: SessionTable;
  /** The stack's own origin: session forms from anywhere else are refused. */
  origin: string;
};

const html = (status: number, body: string, extra: Record<string, string> = {}) =>
  new Response(body, { status, headers: { ...APPROVAL_PAGE_HEADERS, ...extra } });

/** The inbox and its session routes, to mount at `/`. */
export function inboxRoutes(deps: InboxRoutesDeps): Hono {
  const app = new Hono();
  const ownerOf = async (request: Request, cookie: string | undefined) =>
    (await deps.authenticator.authenticate(request, {}))?.owner ?? deps.sessions.owner(cookie);

  app.get('/local/inbox', async (c) => {
    const owner = await ownerOf(c.req.raw, getCookie(c, SESSION_COOKIE));
    if (owner === undefined) return html(200, renderInboxSignIn());
    const mine = deps.inbox.notices().filter((notice) => notice.owner === owner);
    const ownerNotices = deps.inbox.ownerNotices().filter((notice) => notice.owner === owner);
    return html(200, renderInbox(mine, { nowMs: deps.clock.nowMs(), owner, ownerNotices }));
  });

  // Same-origin forms only: another site must not sign a browser in (login CSRF) or out.
  app.use('/local/session', bodyLimit({ maxSize: 4096 }));
  app.use('/local/session/*', bodyLimit({ maxSize: 4096 }));
  const sameOrigin = (headers: Headers) => crossSiteReason(headers, deps.origin) === undefined;

  app.post('/local/session', async (c) => {
    if (!sameOrigin(c.req.raw.headers)) return html(403, renderInboxSignIn({ refused: true }));
    const form = new URLSearchParams(await c.req.text());
    const key = form.get('key') ?? '';
    const probe = new Request('http://local/', { headers: { authorization: `Bearer ${key}` } });
    const identity = key === '' ? undefined : await deps.authenticator.authenticate(probe, {});
    if (identity === undefined) return html(401, renderInboxSignIn({ refused: true }));
    const session = deps.sessions.create(identity.owner);
    setCookie(c, SESSION_COOKIE, session.id, {
      httpOnly: true,
      sameSite: 'Strict',
      path: '/',
      maxAge: session.maxAgeSeconds,
    });
    return c.redirect('/local/inbox', 303);
  });

  app.post('/local/session/end', (c) => {
    if (!sameOrigin(c.req.raw.headers)) return html(403, renderInboxSignIn());
    deps.sessions.end(getCookie(c, SESSION_COOKIE));
    deleteCookie(c, SESSION_COOKIE, { path: '/' });
    return c.redirect('/local/inbox', 303);
  });
  return app;
}
