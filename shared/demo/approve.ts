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

function field(html: string, name: string): string {
  const match = new RegExp(`<input[^>]*name="${name}"[^>]*value="([^"]*)"`).exec(html);
  if (!match?.[1]) throw new Error(`the approval page has no '${name}' field`);
  return unescapeHtml(match[1]);
}

export async function decideThroughPage(
  link: string,
  decision: 'approve' | 'deny',
): Promise<{ status: number; page: string }> {
  const page = await fetch(link);
  const html = await page.text();
  if (!page.ok) return { status: page.status, page: html };
  const action = /<form method="post" action="([^"]+)"/.exec(html)?.[1];
  if (!action) throw new Error('the approval page has no decision form');
  const response = await fetch(new URL(unescapeHtml(action), link), {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams({ t: field(html, 't'), nonce: field(html, 'nonce'), decision }).toString(),
  });
  return { status: response.status, page: await response.text() };
}
