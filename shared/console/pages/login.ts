/** The sign-in page: one password field posting to `/console/login` (same origin only). */
import { html } from 'hono/html';
import { type Fragment, page } from '../layout.ts';

export function signInPage(options: {
  hint?: string | undefined;
  refused?: boolean;
  /** The key was right, but the API could not say who it stands for: why. */
  unavailable?: string;
}): Fragment {
  const refused = options.unavailable
    ? html`<p class="bad" id="unavailable">Not signed in: ${options.unavailable}</p>`
    : options.refused
      ? html`<p class="bad">That key was not accepted.</p>`
      : '';
  return page(
    'Sign in',
    html`${refused}<form method="post" action="/console/login">
<p><label for="key">${options.hint ?? 'Your API key (from .local/api-keys.json)'}</label></p>
<p><input id="key" name="key" type="password" autocomplete="off" size="48" required>
<button type="submit">Sign in</button></p></form>
<p class="muted">The key is exchanged for a session cookie; it is never stored in this browser.</p>`,
  );
}
