/**
 * Delegated jobs (docs/jobs.md), newest first: status, client, budget use against the job's ceiling, and its
 * run. All clients show their newest jobs; choosing one client pages through all of its jobs.
 */
import { html } from 'hono/html';
import type { Identity } from '../../api/deps.ts';
import type { GrantView, JobView, ListJobsResult } from '../../jobs/schemas.ts';
import { apiGet, type ConsoleDeps } from '../deps.ts';
import { type Fragment, page, usd, when } from '../layout.ts';
import { afterOf, nextLink } from '../pager.ts';

/** Jobs shown per client when no client is chosen. */
const NEWEST_PER_CLIENT = 20;

type Row = { clientId: string; job: JobView };

const jobsOf = (deps: ConsoleDeps, identity: Identity, clientId: string, params: URLSearchParams) =>
  apiGet<ListJobsResult>(deps.api, identity, `/v1/grants/${encodeURIComponent(clientId)}/jobs?${params}`);

const budgetUse = (job: JobView) => {
  const ceiling = job.constraints.budget.maxUsdPerJob;
  const share = ceiling > 0 ? Math.round((job.costUsd / ceiling) * 100) : 0;
  return html`<td class="${job.costUsd >= ceiling ? 'bad' : ''}">${usd(job.costUsd)} of ${usd(ceiling)} (${share}%)</td>`;
};

export async function jobsPage(
  deps: ConsoleDeps,
  identity: Identity,
  query: URLSearchParams,
): Promise<Fragment> {
  const { grants } = await apiGet<{ grants: GrantView[] }>(deps.api, identity, '/v1/grants');
  const chosen = grants.find((grant) => grant.clientId === query.get('client'))?.clientId;
  let rows: Row[];
  let nextToken: string | undefined;
  if (chosen !== undefined) {
    const params = new URLSearchParams({ limit: '100' });
    const after = afterOf(query);
    if (after) params.set('nextToken', after);
    const result = await jobsOf(deps, identity, chosen, params);
    rows = result.jobs.map((job) => ({ clientId: chosen, job }));
    nextToken = result.nextToken;
  } else {
    const params = new URLSearchParams({ limit: String(NEWEST_PER_CLIENT) });
    const pages = await Promise.all(grants.map((grant) => jobsOf(deps, identity, grant.clientId, params)));
    rows = pages
      .flatMap((result, index) => result.jobs.map((job) => ({ clientId: grants[index]!.clientId, job })))
      .sort((a, b) => b.job.createdAt.localeCompare(a.job.createdAt));
  }
  const filter = html`<form method="get" action="/console/jobs" id="filters"><label>Client <select name="client">
<option value="">all (newest ${NEWEST_PER_CLIENT} each)</option>${grants.map(
    (grant) =>
      html`<option value="${grant.clientId}" ${grant.clientId === chosen ? 'selected' : ''}>${grant.clientId}</option>`,
  )}</select></label> <button type="submit">Show</button></form>`;
  const table =
    rows.length === 0
      ? html`<p>No jobs.</p>`
      : html`<table id="jobs"><tr><th>Job</th><th>Client</th><th>Status</th><th>Budget use</th><th>Turns</th>
<th>Run</th><th>Submitted</th></tr>${rows.map(
          ({
            clientId,
            job,
          }) => html`<tr data-job="${job.jobId}"><td><code>${job.jobId}</code></td><td>${clientId}</td>
<td><span class="status">${job.status}</span>${job.queuePosition ? ` (#${job.queuePosition} in queue)` : ''}
${job.stopReason ?? ''}</td>${budgetUse(job)}<td>${job.turns} of ${job.constraints.maxTurns}</td>
<td>${job.runId ? html`<a href="/console/runs/${job.runId}">${job.runId}</a>` : html`<span class="muted">none yet</span>`}</td>
<td>${when(job.createdAt)}</td></tr>`,
        )}</table>`;
  const live = rows.some(({ job }) => ['queued', 'running', 'awaiting_approval'].includes(job.status));
  return page('Jobs', html`${filter}${table}${nextLink('/console/jobs', { client: chosen }, nextToken)}`, {
    signedIn: true,
    ...(live ? { refreshSeconds: 5 } : {}),
  });
}
