/** Graph e2e support: the refund example under a test's name, starting it, reading its steps. */
import { randomUUID } from 'node:crypto';
import { readFileSync } from 'node:fs';
import type { Run } from '../../shared/schemas/run.ts';
import type { E2eStack } from '../e2e/support.ts';

const EXAMPLE = readFileSync(new URL('../../examples/refund-request.graph.yaml', import.meta.url), 'utf8');

/** The example under another name (its child runs pick the fixtures `<name>-triage`, `<name>-draft-reply`). */
export const refundGraph = (name: string, paymentsUrl: string) =>
  EXAMPLE.replace('name: refund-request', `name: ${name}`).replace('http://127.0.0.1:4010', paymentsUrl);

export async function startRefund(e2e: E2eStack, workflowId: string, message: string): Promise<string> {
  const { body } = await e2e.client.post<{ run: Run }>(
    `/v1/workflows/${workflowId}/runs`,
    { input: { message } },
    { headers: { 'Idempotency-Key': randomUUID() } },
  );
  return body.run.runId;
}

export const stepsOf = async (e2e: E2eStack, runId: string) =>
  Object.fromEntries(
    ((await e2e.stack.store.loadGraphRun(runId))?.steps ?? []).map((step) => [step.stepId, step]),
  );
