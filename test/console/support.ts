/** Console test support: a signed-in console session, over real HTTP or in process (sign-in form, then the cookie). */
import { CONSOLE_COOKIE, createConsoleApp } from '../../shared/console/app.ts';

export type ConsoleSession = { get(path: string): Promise<{ status: number; html: string }> };

/** Signs in to the console at `baseUrl` with `key` (as the sign-in form posts it, from the same origin). */
export async function consoleSession(baseUrl: string, key: string): Promise<ConsoleSession> {
  const origin = new URL(baseUrl).origin;
  const signIn = await fetch(`${origin}/console/login`, {
    method: 'POST',
    redirect: 'manual',
    headers: { 'content-type': 'application/x-www-form-urlencoded', origin },
    body: new URLSearchParams({ key }).toString(),
  });
  const id = new RegExp(`${CONSOLE_COOKIE}=([^;]+)`).exec(signIn.headers.get('set-cookie') ?? '')?.[1];
  if (signIn.status !== 303 || id === undefined) throw new Error(`sign-in answered ${signIn.status}`);
  return {
    async get(path) {
      const response = await fetch(`${origin}${path}`, {
        redirect: 'manual',
        headers: { cookie: `${CONSOLE_COOKIE}=${id}` },
      });
      return { status: response.status, html: await response.text() };
    },
  };
}

/**
 * The console app made of `deps`, signed in in process through its sign-in form with `key` (from `deps.origin`):
 * a request function that sends the session's cookie with each request.
 */
export async function signedInApp(deps: Parameters<typeof createConsoleApp>[0], key = 'k') {
  const app = createConsoleApp(deps);
  const signIn = await app.request('/console/login', {
    method: 'POST',
    body: new URLSearchParams({ key }).toString(),
    headers: { 'content-type': 'application/x-www-form-urlencoded', origin: deps.origin },
  });
  const cookie = `${CONSOLE_COOKIE}=${new RegExp(`${CONSOLE_COOKIE}=([^;]+)`).exec(signIn.headers.get('set-cookie') ?? '')?.[1]}`;
  return (path: string, init: { method?: string; headers?: Record<string, string> } = {}) =>
    app.request(path, { ...init, headers: { ...init.headers, cookie } });
}

/** The text of an HTML fragment as a reader sees it: tags dropped, entities of the escaper undone, spaces collapsed. */
export const textOf = (html: string) =>
  html
    .replaceAll(/<[^>]+>/g, ' ')
    .replaceAll('&amp;', '&')
    .replaceAll('&lt;', '<')
    .replaceAll('&gt;', '>')
    .replaceAll('&quot;', '"')
    .replaceAll('&#39;', "'")
    .replaceAll(/\s+/g, ' ')
    .trim();
