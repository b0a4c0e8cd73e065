/** Runs, newest first, 100 a page (a "Next" link pages on), filtered by workflow, kind and status (a plain GET form: no script). */
import { html } from 'hono/html';
import type { Identity } from '../../api/deps.ts';
import { isTerminalRunStatus, RUN_STATUSES, type Run, type RunStatus } from '../../schemas/run.ts';
import { apiGet, type ConsoleDeps } from '../deps.ts';
import { type Fragment, page, usd, when } from '../layout.ts';
import { afterOf, nextLink, noneHere } from '../pager.ts';
import { allWorkflowHeads } from '../workflow-data.ts';

const KINDS = ['agent', 'graph', 'external'] as const;

/** A run's kind: absent on agent runs (and on runs stored before kinds existed). */
const kindOf = (run: Run) => run.kind ?? 'agent';

const options = (values: readonly { value: string; label: string }[], selected: string | undefined) =>
  values.map(
    (option) =>
      html`<option value="${option.value}" ${option.value === selected ? 'selected' : ''}>${option.label}</option>`,
  );

export async function runsPage(
  deps: ConsoleDeps,
  identity: Identity,
  query: URLSearchParams,
): Promise<Fragment> {
  const workflows = await allWorkflowHeads(deps, identity);
  const workflow = workflows.find((head) => head.workflowId === query.get('workflow'));
  const status = RUN_STATUSES.find((candidate) => candidate === query.get('status')) as RunStatus | undefined;
  const kind = KINDS.find((candidate) => candidate === query.get('kind'));
  const params = new URLSearchParams({ limit: '100' });
  if (workflow) params.set('workflowId', workflow.workflowId);
  if (status) params.set('status', status);
  const after = afterOf(query);
  if (after) params.set('nextToken', after);
  const { items, nextToken } = await apiGet<{ items: Run[]; nextToken?: string }>(
    deps.api,
    identity,
    `/v1/runs?${params}`,
  );
  // The API filters by workflow and status; the kind is on each run, so it filters within the page.
  const runs = kind ? items.filter((run) => kindOf(run) === kind) : items;

  const all = { value: '', label: 'all' };
  const filters = html`<form method="get" action="/console/runs" id="filters">
<label>Workflow <select name="workflow">${options(
    [all, ...workflows.map((head) => ({ value: head.workflowId, label: head.name }))],
    workflow?.workflowId,
  )}</select></label>
<label>Kind <select name="kind">${options([all, ...KINDS.map((value) => ({ value, label: value }))], kind)}</select></label>
<label>Status <select name="status">${options(
    [all, ...RUN_STATUSES.map((value) => ({ value, label: value }))],
    status,
  )}</select></label> <button type="submit">Filter</button></form>`;
  const rows = runs.map(
    (run) => html`<tr><td><a href="/console/runs/${run.runId}">${run.runId}</a></td><td>${run.workflowName}
v${run.workflowVersion}</td><td>${kindOf(run)}</td><td><span class="status">${run.status}</span>
${run.stopReason ?? ''}</td><td>${run.trigger.type}</td><td>${when(run.createdAt)}</td><td>${usd(run.costUsd)}</td></tr>`,
  );
  const table =
    runs.length === 0
      ? noneHere('No runs match.', nextToken)
      : html`<table id="runs"><tr><th>Run</th><th>Workflow</th><th>Kind</th><th>Status</th><th>Trigger</th>
<th>Started</th><th>Cost</th></tr>${rows}</table>`;
  const live = runs.some((run) => !isTerminalRunStatus(run.status));
  const next = nextLink('/console/runs', { workflow: workflow?.workflowId, kind, status }, nextToken);
  // Only the first page polls: a later page is a look back, and reloading would not move it.
  const poll = live && after === undefined;
  return page('Runs', html`${filters}${table}${next}`, {
    signedIn: true,
    ...(poll ? { refreshSeconds: 5 } : {}),
  });
}
