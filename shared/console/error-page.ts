/**
 * What a console page answers when it cannot be drawn. The API's refusals (any 4xx: a forged page token, a
 * conflict on cancel, a denied call) keep the API's own status, code, message and fields, escaped; a 404 also
 * says it may not be yours (the API answers a foreign id and a missing one alike). Only a failure upstream (the
 * API unreachable, or its 5xx) is a 502; a fault in the console itself is a 500 whose detail is not shown.
 */
import { html } from 'hono/html';
import { ConsoleApiError, ConsoleUpstreamError } from './deps.ts';
import { type Fragment, page } from './layout.ts';

export type ErrorPage = { status: number; body: Fragment };

const signedIn = { signedIn: true };

const apiLine = (error: ConsoleApiError) =>
  html`<p id="api-error">The API answered <strong>HTTP ${error.status}</strong>${
    error.code ? ` (${error.code})` : ''
  }: ${error.message}</p>${
    error.fields.length === 0
      ? ''
      : html`<ul id="api-error-fields">${error.fields.map(
          (field) => html`<li>${field.path}: ${field.message}</li>`,
        )}</ul>`
  }`;

export function errorPage(error: unknown): ErrorPage {
  if (error instanceof ConsoleApiError && error.status === 404) {
    const body = html`${apiLine(error)}<p>There is nothing here, or it is not yours.</p>`;
    return { status: 404, body: page('Not found', body, signedIn) };
  }
  if (error instanceof ConsoleApiError && error.status >= 400 && error.status <= 499) {
    return { status: error.status, body: page('The API refused this request', apiLine(error), signedIn) };
  }
  if (error instanceof ConsoleApiError) {
    const body = html`${apiLine(error)}<p>The API failed; try again shortly.</p>`;
    return { status: 502, body: page('The API did not answer as expected', body, signedIn) };
  }
  if (error instanceof ConsoleUpstreamError) {
    const body = html`<p id="api-error">The API could not be reached: ${error.message}</p>`;
    return { status: 502, body: page('The API did not answer', body, signedIn) };
  }
  const body = 'The console failed to draw this page.';
  return { status: 500, body: page('Console error', body, signedIn) };
}
