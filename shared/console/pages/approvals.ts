/** Pending approvals: what waits, who is asked and until when. Never the links (they are credentials). */
import { html } from 'hono/html';
import type { Identity } from '../../api/deps.ts';
import type { Approval } from '../../schemas/approval.ts';
import { apiGet, type ConsoleDeps } from '../deps.ts';
import { type Fragment, page, when } from '../layout.ts';

export async function approvalsPage(deps: ConsoleDeps, identity: Identity): Promise<Fragment> {
  const { items } = await apiGet<{ items: Approval[] }>(
    deps.api,
    identity,
    '/v1/approvals?status=pending&limit=100',
  );
  const rows = items.map(
    (approval) => html`<tr><td><code>${approval.tool}</code></td>
<td><a href="/console/runs/${approval.runId}">${approval.runId}</a> (${approval.workflowName})</td>
<td>${approval.approvers.join(', ')}</td><td>${when(approval.expiresAt)}</td><td>${when(approval.createdAt)}</td></tr>`,
  );
  const body =
    items.length === 0
      ? html`<p>No approval is waiting.</p>`
      : html`<table id="approvals"><tr><th>Action</th><th>Run</th><th>Who is asked</th><th>Until</th>
<th>Requested</th></tr>${rows}</table>
<p class="muted">Approvers decide through the signed link they were sent; the console never shows it.</p>`;
  return page('Pending approvals', body, { signedIn: true, refreshSeconds: 10 });
}
