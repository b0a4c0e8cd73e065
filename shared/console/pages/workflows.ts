/** Workflows, 100 a page: kind, trigger and next fire time, enabled, latest version, last run, today's spend vs ceiling. */
import { html } from 'hono/html';
import type { Identity } from '../../api/deps.ts';
import type { ConsoleDeps } from '../deps.ts';
import { type Fragment, page, usd, when } from '../layout.ts';
import { afterOf, nextLink } from '../pager.ts';
import { type WorkflowSummary, workflowSummaries } from '../workflow-data.ts';

const triggerText = (summary: WorkflowSummary) => {
  const trigger = summary.trigger;
  if (trigger === undefined) return 'none';
  if (trigger.type === 'schedule') return `${trigger.expression} (${trigger.timezone ?? 'UTC'})`;
  return trigger.type === 'event' ? 'event pattern' : trigger.type;
};

export async function workflowsPage(
  deps: ConsoleDeps,
  identity: Identity,
  query: URLSearchParams,
): Promise<Fragment> {
  const { summaries, nextToken } = await workflowSummaries(deps, identity, afterOf(query));
  const rows = summaries.map((summary) => {
    const { head, lastRun, spend } = summary;
    const over = spend.ceilingUsd !== null && spend.totalUsd >= spend.ceilingUsd;
    const last = lastRun
      ? html`<a href="/console/runs/${lastRun.runId}">${lastRun.status}</a> ${when(lastRun.createdAt)}`
      : html`<span class="muted">none</span>`;
    return html`<tr><td><a href="/console/runs?workflow=${head.workflowId}">${head.name}</a></td>
<td>${summary.kind}</td><td>${triggerText(summary)}</td><td>${when(summary.nextFireMs)}</td>
<td>${head.enabled ? 'yes' : html`<span class="bad">no</span>`}</td><td>v${head.latestVersion}${head.draftVersion ? ` (draft v${head.draftVersion})` : ''}</td>
<td>${last}</td><td class="${over ? 'bad' : ''}">${usd(spend.totalUsd)} of
${spend.ceilingUsd === null ? 'no ceiling' : usd(spend.ceilingUsd)}</td></tr>`;
  });
  const body =
    summaries.length === 0
      ? html`<p>No workflows yet: <code>wf workflow apply -f FILE</code> adds one.</p>`
      : html`<table id="workflows"><tr><th>Workflow</th><th>Kind</th><th>Trigger</th><th>Next fire</th>
<th>Enabled</th><th>Latest</th><th>Last run</th><th>Today's spend</th></tr>${rows}</table>`;
  return page('Workflows', html`${body}${nextLink('/console/workflows', {}, nextToken)}`, { signedIn: true });
}
