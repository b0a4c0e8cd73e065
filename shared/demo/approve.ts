/**
 * Decides an approval the way a person does in a browser: GET the link, read the form (action, hidden
 * `t` and `nonce`), POST it with the chosen button. Used by the demo's `--auto-approve` / `CI=true` path,
 * so an unattended run goes through exactly the same page and POST as a human click.
 */
const unescapeHtml = (value: string) =>
  value
    .replaceAll('&quot;', '"')
    .replaceAll('&#39;', "'")
    .replaceAll('&lt;', '<')
    .replaceAll('&gt;', '>')
    .replaceAll('&amp;', '&');

export type ApprovalForm = { action: string; t: string; nonce: string };

/** Reads the decision form of an approval page: its absolute action URL and the hidden `t` and `nonce`. */
export function readApprovalForm(html: string, pageUrl: string): ApprovalForm {
  const field = (name: string) => {
    const match = new RegExp(`<input[^>]*name="${name}"[^>]*value="([^"]*)"`).exec(html)?.[1];
    if (!match) throw new Error(`the approval page has no '${name}' field`);
    return unescapeHtml(match);
  };
  const action = /<form method="post" action="([^"]+)"/.exec(html)?.[1];
  if (!action) throw new Error('the approval page has no decision form');
  return { action: new URL(unescapeHtml(action), pageUrl).toString(), t: field('t'), nonce: field('nonce') };
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
    body: new URLSearchParams({ t: form.t, nonce: form.nonce, decision }).toString(),
  });
  return { status: response.status, page: await response.text() };
}
