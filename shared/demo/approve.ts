/**
 * Decides an approval the way a person does in a browser: GET the link, read the form (action, hidden
 * `t`, `nonce` and `state`), POST it with the chosen button. Used by the demo's `--auto-approve` / `CI=true` path,
 * so an unattended run goes through exactly the same page and POST as a human click.
 */
const unescapeHtml = (value: string) =>
  value
    .replaceAll('&quot;', '"')
    .replaceAll('&#39;', "'")
    .replaceAll('&lt;', '<')
    .replaceAll('&gt;', '>')
    .replaceAll('&amp;', '&');

/** `state`: what the page read, sealed (absent when the page carries none: the decision then reads). */
export type ApprovalForm = { action: string; t: string; nonce: string; state?: string };

/**
 * Reads the decision form of a page (an approval's; a human task's has no `state`): its absolute action URL
 * and the hidden `t`, `nonce` and, when the page has one, `state`.
 */
export function readApprovalForm(html: string, pageUrl: string): ApprovalForm {
  const value = (name: string) => new RegExp(`<input[^>]*name="${name}"[^>]*value="([^"]*)"`).exec(html)?.[1];
  const field = (name: string) => {
    const match = value(name);
    if (!match) throw new Error(`the approval page has no '${name}' field`);
    return unescapeHtml(match);
  };
  const action = /<form method="post" action="([^"]+)"/.exec(html)?.[1];
  if (!action) throw new Error('the approval page has no decision form');
  const state = value('state');
  return {
    action: new URL(unescapeHtml(action), pageUrl).toString(),
    t: field('t'),
    nonce: field('nonce'),
    ...(state ? { state: unescapeHtml(state) } : {}),
  };
}

/** The urlencoded body a click on one of the form's buttons posts: its hidden fields and the decision. */
export function approvalFormBody(form: ApprovalForm, decision: 'approve' | 'deny'): string {
  return new URLSearchParams({
    t: form.t,
    nonce: form.nonce,
    ...(form.state === undefined ? {} : { state: form.state }),
    decision,
  }).toString();
}

/**
 * Links go out before RequestApproval stores the task token; until then the page answers 409 "Request not open"
 * (shared/approvals-http/results.ts). A person opens a link seconds later; an unattended decision tries again
 * for up to `attempts` × `pauseMs` as a person would reopen it.
 */
export async function decideThroughPage(
  link: string,
  decision: 'approve' | 'deny',
  { attempts = 50, pauseMs = 100 }: { attempts?: number; pauseMs?: number } = {},
): Promise<{ status: number; page: string }> {
  let page = await fetch(link);
  let html = await page.text();
  for (let attempt = 1; page.status === 409 && attempt < attempts; attempt++) {
    await new Promise((resolve) => setTimeout(resolve, pauseMs));
    page = await fetch(link);
    html = await page.text();
  }
  if (!page.ok) return { status: page.status, page: html };
  const form = readApprovalForm(html, link);
  const response = await fetch(form.action, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    body: approvalFormBody(form, decision),
  });
  return { status: response.status, page: await response.text() };
}
