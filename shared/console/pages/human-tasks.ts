/**
 * Open human tasks (graph `human_task` steps): what is asked, of whom, until when, in which run and step.
 * Never the links: they are the assignees' credentials, and are not stored anywhere the API could read.
 */
import { html } from 'hono/html';
import type { Identity } from '../../api/deps.ts';
import type { HumanTask } from '../../schemas/human-task.ts';
import { apiGet, type ConsoleDeps } from '../deps.ts';
import { type Fragment, page, when } from '../layout.ts';
import { afterOf, nextLink, noneHere } from '../pager.ts';

type PublicTask = Omit<HumanTask, 'taskToken'>;

export async function humanTasksPage(
  deps: ConsoleDeps,
  identity: Identity,
  query: URLSearchParams,
): Promise<Fragment> {
  const params = new URLSearchParams({ status: 'open', limit: '100' });
  const after = afterOf(query);
  if (after) params.set('nextToken', after);
  const { items, nextToken } = await apiGet<{ items: PublicTask[]; nextToken?: string }>(
    deps.api,
    identity,
    `/v1/human-tasks?${params}`,
  );
  const rows = items.map(
    (task) => html`<tr data-task="${task.taskId}"><td>${task.title}</td>
<td><a href="/console/runs/${task.runId}">${task.runId}</a> (${task.workflowName})</td>
<td><code>${task.stepId}</code>${task.attempt > 1 ? ` (attempt ${task.attempt})` : ''}</td>
<td>${task.assignees.join(', ')}</td><td>${when(task.expiresAt)}</td><td>${when(task.createdAt)}</td></tr>`,
  );
  const body =
    items.length === 0
      ? noneHere('No human task is waiting.', nextToken)
      : html`<table id="human-tasks"><tr><th>Task</th><th>Run</th><th>Step</th><th>Who is asked</th><th>Until</th>
<th>Requested</th></tr>${rows}</table>
<p class="muted">Assignees answer through the signed link they were sent; the console never shows it.</p>`;
  return page('Open human tasks', html`${body}${nextLink('/console/human-tasks', {}, nextToken)}`, {
    signedIn: true,
    refreshSeconds: 10,
  });
}
