/**
 * The web console under `/console`: server-rendered pages over the HTTP API for one signed-in owner.
 * Sign-in exchanges an API key (or the token `wf console --aws` printed) for a random session id in an
 * HttpOnly, SameSite=Strict cookie scoped to `/console`; the key is never stored in the browser. Every POST
 * (sign-in, sign-out, cancel) must come from the console's own origin (shared/approvals-http/same-origin.ts).
 */
import { type Context, Hono } from 'hono';
import { bodyLimit } from 'hono/body-limit';
import { deleteCookie, getCookie, setCookie } from 'hono/cookie';
import type { Identity } from '../api/deps.ts';
import { crossSiteReason } from '../approvals-http/same-origin.ts';
import { ConsoleApiError, type ConsoleDeps, SignInUnavailableError, upstreamGuarded } from './deps.ts';
import { errorPage } from './error-page.ts';
import { CONSOLE_HEADERS, type Fragment, page } from './layout.ts';
import { approvalsPage } from './pages/approvals.ts';
import { grantsPage } from './pages/grants.ts';
import { humanTasksPage } from './pages/human-tasks.ts';
import { jobsPage } from './pages/jobs.ts';
import { signInPage } from './pages/login.ts';
import { runPage } from './pages/run.ts';
import { runsPage } from './pages/runs.ts';
import { workflowsPage } from './pages/workflows.ts';

/** The console's session cookie: its own name and path, apart from the local inbox's. */
export const CONSOLE_COOKIE = 'wf_console';

type Env = { Variables: { identity: Identity } };

/**
 * The owner a presented key signs in as, or undefined. The console is the owner's: a delegated-jobs client's
 * key (docs/jobs.md) never opens it, whatever `login` answers. A session keeps only owner and principal, so a
 * client let through here would act with its owner's full rights. Any fault in `login` refuses (fail closed).
 */
async function signInIdentity(deps: ConsoleDeps, key: string): Promise<Identity | undefined> {
  let identity: Identity | undefined;
  try {
    identity = await deps.login(key);
  } catch (error) {
    // Still refused; only a login that says why (the key was right, the API was not) shows its reason.
    if (error instanceof SignInUnavailableError) throw error;
    return undefined;
  }
  if (identity === undefined || identity.client !== undefined) return undefined;
  return typeof identity.owner === 'string' && identity.owner !== '' ? identity : undefined;
}

const respond = async (status: number, body: Fragment) =>
  new Response(await body, { status, headers: CONSOLE_HEADERS });

export function createConsoleApp(given: ConsoleDeps): Hono<Env> {
  const deps = { ...given, api: upstreamGuarded(given.api) };
  const app = new Hono<Env>();
  const sameOrigin = (c: Context) => crossSiteReason(c.req.raw.headers, deps.origin) === undefined;
  const refused = () => respond(403, page('Refused', 'This form did not come from the console.'));

  app.onError((error) => {
    const answer = errorPage(error);
    return respond(answer.status, answer.body);
  });

  app.use('/console/*', bodyLimit({ maxSize: 4096 }));
  app.get('/console/login', () => respond(200, signInPage({ hint: deps.keyHint })));
  app.post('/console/login', async (c) => {
    if (!sameOrigin(c)) return refused();
    const key = new URLSearchParams(await c.req.text()).get('key')?.trim() ?? '';
    let identity: Identity | undefined;
    try {
      identity = key === '' ? undefined : await signInIdentity(deps, key);
    } catch (error) {
      const unavailable = (error as SignInUnavailableError).message;
      return respond(502, signInPage({ hint: deps.keyHint, unavailable }));
    }
    if (identity === undefined) return respond(401, signInPage({ hint: deps.keyHint, refused: true }));
    const session = deps.sessions.create(identity.owner, identity.principal);
    setCookie(c, CONSOLE_COOKIE, session.id, {
      httpOnly: true,
      sameSite: 'Strict',
      path: '/console',
      maxAge: session.maxAgeSeconds,
    });
    return c.redirect('/console/runs', 303);
  });
  app.post('/console/logout', (c) => {
    if (!sameOrigin(c)) return refused();
    deps.sessions.end(getCookie(c, CONSOLE_COOKIE));
    deleteCookie(c, CONSOLE_COOKIE, { path: '/console' });
    return c.redirect('/console/login', 303);
  });

  // Everything else needs a live session; without one, the sign-in page.
  app.use('/console/*', async (c, next) => {
    const identity = deps.sessions.identity(getCookie(c, CONSOLE_COOKIE));
    if (identity === undefined) return c.redirect('/console/login', 303);
    c.set('identity', identity);
    await next();
  });
  app.get('/console', (c) => c.redirect('/console/runs', 303));
  app.get('/console/', (c) => c.redirect('/console/runs', 303));
  app.get('/console/workflows', async (c) =>
    respond(200, await workflowsPage(deps, c.get('identity'), new URL(c.req.url).searchParams)),
  );
  app.get('/console/runs', async (c) =>
    respond(200, await runsPage(deps, c.get('identity'), new URL(c.req.url).searchParams)),
  );
  app.get('/console/runs/:id', async (c) =>
    respond(
      200,
      await runPage(
        deps,
        c.get('identity'),
        c.req.param('id'),
        c.req.query('transcript'),
        c.req.query('audit'),
      ),
    ),
  );
  app.post('/console/runs/:id/cancel', async (c) => {
    if (!sameOrigin(c)) return refused();
    const runId = encodeURIComponent(c.req.param('id'));
    const answer = await deps.api(c.get('identity'), 'POST', `/v1/runs/${runId}/cancel`);
    if (answer.status !== 200) throw new ConsoleApiError(answer.status, answer.body);
    return c.redirect(`/console/runs/${runId}`, 303);
  });
  const query = (c: Context) => new URL(c.req.url).searchParams;
  app.get('/console/approvals', async (c) =>
    respond(200, await approvalsPage(deps, c.get('identity'), query(c))),
  );
  app.get('/console/human-tasks', async (c) =>
    respond(200, await humanTasksPage(deps, c.get('identity'), query(c))),
  );
  app.get('/console/jobs', async (c) => respond(200, await jobsPage(deps, c.get('identity'), query(c))));
  app.get('/console/grants', async (c) => respond(200, await grantsPage(deps, c.get('identity'))));
  app.all('/console/*', () => respond(404, page('Not found', 'There is no such console page.')));
  return app;
}
