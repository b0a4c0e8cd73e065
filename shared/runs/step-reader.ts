/**
 * A client's read of all of a graph run's steps over the paged API (GET /v1/runs/{id}/steps): follows
 * `nextToken` (the API pages steps under Lambda's 6 MB, shared/runs/step-page.ts).
 */
import type { GraphStep } from '../schemas/graph-step.ts';
import { walkPages } from './page-walk.ts';

export type PublicStep = Omit<GraphStep, 'taskToken' | 'waitFence'>;
export type StepsPageBody = { runId: string; steps: PublicStep[]; nextToken?: string };

/** Every step of the run, in order; `get` fetches one page (the path's query included). */
export async function readAllSteps(
  runId: string,
  get: (path: string) => Promise<StepsPageBody>,
): Promise<PublicStep[]> {
  const steps: PublicStep[] = [];
  await walkPages(`/v1/runs/${encodeURIComponent(runId)}/steps`, get, (page) => steps.push(...page.steps));
  return steps;
}
