/**
 * Delegation grants (docs/jobs.md): each client, what it may use (actions and their gates, models), its
 * limits, whether it is revoked. Grants have no expiry of their own: one lasts until it is revoked.
 */
import { html } from 'hono/html';
import type { Identity } from '../../api/deps.ts';
import type { GrantView } from '../../jobs/schemas.ts';
import { apiGet, type ConsoleDeps } from '../deps.ts';
import { type Fragment, page, when } from '../layout.ts';

const gateOf = (grant: GrantView['grant'], action: string) => {
  const gate = grant.gates[action];
  if (gate === undefined) return 'allow';
  return typeof gate === 'string' ? gate : gate.mode;
};

const limits = (grant: GrantView['grant']) =>
  [
    `$${grant.maxUsdPerJob} per job`,
    grant.maxUsdPerDay === undefined ? undefined : `$${grant.maxUsdPerDay} per day`,
    `${grant.maxTurns} turns`,
    `${grant.concurrency} at once, ${grant.maxQueued} queued`,
    `${grant.maxAttempts} attempts`,
    `${grant.jobTimeoutSeconds} s per job`,
  ]
    .filter((part) => part !== undefined)
    .join('; ');

export async function grantsPage(deps: ConsoleDeps, identity: Identity): Promise<Fragment> {
  const { grants } = await apiGet<{ grants: GrantView[] }>(deps.api, identity, '/v1/grants');
  const rows = grants.map(
    (view) => html`<tr data-client="${view.clientId}" class="${view.revoked ? 'denied' : ''}">
<td><a href="/console/jobs?${new URLSearchParams({ client: view.clientId }).toString()}">${view.clientId}</a></td>
<td>${view.grant.actions.length === 0 ? html`<span class="muted">none</span>` : view.grant.actions.map((action) => html`<code>${action}</code> (${gateOf(view.grant, action)}) `)}</td>
<td>${view.grant.models.join(', ')}</td><td>${limits(view.grant)}</td><td>${view.grant.scopes.join(', ')}</td>
<td>never (until revoked)</td><td class="what">${view.revoked ? 'revoked' : 'no'}</td>
<td>v${view.version}, ${when(view.updatedAt)} by ${view.updatedBy}</td></tr>`,
  );
  const body =
    grants.length === 0
      ? html`<p>No client has a grant: <code>wf grant create</code> adds one.</p>`
      : html`<table id="grants"><tr><th>Client</th><th>Allowed actions (gate)</th><th>Models</th><th>Limits</th>
<th>Scopes</th><th>Expiry</th><th>Revoked</th><th>Last change</th></tr>${rows}</table>`;
  return page('Grants', body, { signedIn: true });
}
