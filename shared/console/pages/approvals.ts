/** Pending approvals: what waits, who is asked and until when. Never the links (they are credentials). */
import { html } from 'hono/html';
import type { Identity } from '../../api/deps.ts';
import type { Approval } from '../../schemas/approval.ts';
import { apiGet, type ConsoleDeps } from '../deps.ts';
import { type Fragment, page, when } from '../layout.ts';
import { afterOf, nextLink, noneHere } from '../pager.ts';

export async function approvalsPage(
  deps: ConsoleDeps,
  identity: Identity,
  query: URLSearchParams,
): Promise<Fragment> {
  const params = new URLSearchParams({ status: 'pending', limit: '100' });
  const after = afterOf(query);
  if (after) params.set('nextToken', after);
  const { items, nextToken } = await apiGet<{ items: Approval[]; nextToken?: string }>(
    deps.api,
    identity,
    `/v1/approvals?${params}`,
  );
  const rows = items.map(
    (approval) => html`<tr><td><code>${approval.tool}</code></td>
<td><a href="/console/runs/${approval.runId}">${approval.runId}</a> (${approval.workflowName})</td>
<td>${approval.approvers.join(', ')}</td><td>${when(approval.expiresAt)}</td><td>${when(approval.createdAt)}</td></tr>`,
  );
  const body =
    items.length === 0
      ? noneHere('No approval is waiting.', nextToken)
      : html`<table id="approvals"><tr><th>Action</th><th>Run</th><th>Who is asked</th><th>Until</th>
<th>Requested</th></tr>${rows}</table>
<p class="muted">Approvers decide through the signed link they were sent; the console never shows it.</p>`;
  return page('Pending approvals', html`${body}${nextLink('/console/approvals', {}, nextToken)}`, {
    signedIn: true,
    // Only the first page polls, as on the runs page.
    ...(after === undefined ? { refreshSeconds: 10 } : {}),
  });
}
