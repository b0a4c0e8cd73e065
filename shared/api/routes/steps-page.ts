/**
 * `GET /v1/runs/{id}/steps`, a page at a time: whole steps up to the page's byte bound (shared/runs/step-page.ts)
 * and `limit`. The token names the last step given, as a key of the run's own steps (`STEP#<stepId>`); the next
 * page starts after it.
 */

import { STEP_PAGE_BYTES, stepPage } from '../../runs/step-page.ts';
import type { GraphStep } from '../../schemas/graph-step.ts';
import { decodeToken, encodeToken } from '../../store/index.ts';
import type { ApiDeps } from '../deps.ts';
import { invalid } from '../errors.ts';
import { checkedToken, tokenShapes } from '../pagination.ts';

/** Without `limit`, a page is bounded by bytes alone: more steps than a graph may have (100 nodes). */
const UNLIMITED_STEPS = 1000;
const CURSOR_SK = /^STEP#([a-z][a-z0-9_]{0,39})$/;

/** A step as the API shows it: never the wait's task token (a credential), nor its attempt's fence. */
export const publicStep = ({ taskToken: _token, waitFence: _fence, ...step }: GraphStep) => step;

function afterOf(runId: string, token: string | undefined): string | undefined {
  const checked = checkedToken(token, tokenShapes.steps(runId));
  if (checked === undefined) return undefined;
  const match = CURSOR_SK.exec(String(decodeToken(checked)?.sk));
  if (!match) throw invalid([{ path: 'nextToken', message: 'is not a token this listing issued' }]);
  return match[1];
}

/** The page of `runId`'s steps the query asks for (the run is the caller's: checked before). */
export async function readStepsPage(
  deps: ApiDeps,
  runId: string,
  query: { limit?: number | undefined; nextToken?: string | undefined },
): Promise<{ runId: string; steps: ReturnType<typeof publicStep>[]; nextToken?: string }> {
  const count = query.limit ?? UNLIMITED_STEPS;
  const range = await deps.store.readStepRange(runId, {
    afterStepId: afterOf(runId, query.nextToken),
    count,
    bytes: STEP_PAGE_BYTES,
  });
  const page = stepPage(range.steps, range.more, publicStep);
  const last = page.steps.at(-1);
  const nextToken =
    page.more && last ? encodeToken({ pk: `RUN#${runId}`, sk: `STEP#${last.stepId}` }) : undefined;
  return { runId, steps: page.steps, ...(nextToken ? { nextToken } : {}) };
}
