/**
 * The graph section of a graph run's page: the DAG of the run's workflow version with each step's state
 * (laid out on the server, inline SVG), its legend, and a table of the steps in words (attempt, times, child
 * run, error). A node with no step item yet is `pending`.
 */
import { html } from 'hono/html';
import type { Identity } from '../../api/deps.ts';
import { type PublicStep, readAllSteps, type StepsPageBody } from '../../runs/step-reader.ts';
import type { Run } from '../../schemas/run.ts';
import type { WorkflowVersion } from '../../schemas/workflow-record.ts';
import { apiGet, ConsoleApiError, type ConsoleDeps } from '../deps.ts';
import { legend } from '../graph/states.ts';
import { type DrawnNode, graphSvg } from '../graph/svg.ts';
import { when } from '../layout.ts';

type GraphShape = {
  nodes: { id: string; type: string }[];
  edges: { from: string; to: string; when?: string }[];
};

/**
 * The drawn nodes: the definition's, in its order, each with its step's state, or `pending` without a step
 * item. The start node has no item and has succeeded once the run exists (as the executor reads it,
 * shared/graph-run/run-data.ts).
 */
export function drawnNodes(shape: GraphShape, steps: readonly PublicStep[]): DrawnNode[] {
  const byId = new Map(steps.map((step) => [step.stepId, step]));
  return shape.nodes.map((node) => {
    const step = byId.get(node.id);
    const state = step?.status ?? (node.type === 'start' ? 'succeeded' : 'pending');
    return { id: node.id, type: node.type, state, attempt: step?.attempt };
  });
}

const stepRows = (nodes: readonly DrawnNode[], steps: readonly PublicStep[]) => {
  const byId = new Map(steps.map((step) => [step.stepId, step]));
  return nodes.map((node) => {
    const step = byId.get(node.id);
    const child = step?.childRunId
      ? html`<a href="/console/runs/${step.childRunId}">${step.childRunId}</a>`
      : '';
    return html`<tr data-step="${node.id}"><td><code>${node.id}</code></td><td>${node.type}</td>
<td><span class="status">${node.state}</span>${step?.timedOut ? ' (timed out)' : ''}</td><td>${step?.attempt ?? 0}</td>
<td>${when(step?.startedAt)}</td><td>${when(step?.endedAt)}</td><td>${child}</td>
<td class="bad">${step?.error ? `${step.error.name}: ${step.error.message}` : ''}</td></tr>`;
  });
};

const stepTable = (nodes: readonly DrawnNode[], steps: readonly PublicStep[]) =>
  html`<table id="steps"><tr><th>Step</th><th>Type</th><th>State</th><th>Attempt</th><th>Started</th><th>Ended</th>
<th>Child run</th><th>Error</th></tr>${stepRows(nodes, steps)}</table>`;

export async function graphSection(deps: ConsoleDeps, identity: Identity, run: Run) {
  const workflow = encodeURIComponent(run.workflowId);
  const [version, steps] = await Promise.all([
    apiGet<{ version: WorkflowVersion }>(
      deps.api,
      identity,
      `/v1/workflows/${workflow}/versions/${run.workflowVersion}`,
    ).then(
      (answer) => answer.version,
      // A deleted workflow's versions are gone; its runs are not: show the steps without the drawing.
      (error: unknown) => {
        if (error instanceof ConsoleApiError && error.status === 404) return undefined;
        throw error;
      },
    ),
    // Every page: the table shows no input or output, so all steps fit one console page.
    readAllSteps(run.runId, (path) => apiGet<StepsPageBody>(deps.api, identity, path)),
  ]);
  if (version === undefined) {
    const shape = { nodes: steps.map((step) => ({ id: step.stepId, type: step.type })), edges: [] };
    return html`<h2>Graph</h2><p class="muted">The workflow version this run ran is gone (the workflow was
deleted): its steps, without the drawing.</p>${stepTable(drawnNodes(shape, steps), steps)}`;
  }
  const shape = version.definition as unknown as GraphShape;
  const nodes = drawnNodes(shape, steps);
  return html`<h2>Graph</h2>${run.paused ? html`<p class="bad">Paused: no new step starts until it is resumed.</p>` : ''}
<div class="graph">${graphSvg(nodes, shape.edges)}</div>${legend()}
<p class="muted">A dashed arrow has a condition: hover it to read it.</p>${stepTable(nodes, steps)}`;
}
