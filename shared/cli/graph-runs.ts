/** `wf run steps|pause|resume|cancel|retry-step`: a graph run's steps and the operator controls (docs/cli.md). */
import { cutText } from '../core/byte-caps.ts';
import { readAllSteps, type StepsPageBody } from '../runs/step-reader.ts';
import type { GraphStep } from '../schemas/graph-step.ts';
import type { Run } from '../schemas/run.ts';
import type { ApiClient } from './client.ts';

type Output = { line(text: string): void; data(value: unknown): void };

const stepLine = (step: Omit<GraphStep, 'taskToken'>): string =>
  `  ${step.stepId.padEnd(24)} ${step.status.padEnd(10)} attempt ${step.attempt}` +
  (step.error ? `  ${step.error.name}: ${cutText(step.error.message, 120)}` : '');

export async function showSteps(client: ApiClient, runId: string, out: Output): Promise<number> {
  // The API pages steps under Lambda's 6 MB: every page, shown as one answer.
  const steps = await readAllSteps(runId, (path) => client.get<StepsPageBody>(path));
  const body = { runId, steps };
  out.data(body);
  out.line(`${runId}: ${body.steps.length} step(s) started`);
  for (const step of body.steps) out.line(stepLine(step));
  return 0;
}

/** POSTs an operation and prints the run's new state. */
export async function runOperation(
  client: ApiClient,
  path: string,
  what: string,
  out: Output,
): Promise<number> {
  const { body } = await client.post<{ run: Run }>(path, {});
  out.data(body);
  out.line(`${body.run.runId}: ${what}; now ${body.run.status}${body.run.paused ? ' (paused)' : ''}`);
  return 0;
}
