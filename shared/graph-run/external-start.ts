/**
 * Starting an external step (Advance): its payload is rendered from the run data now and kept on the step, so
 * every retry of the wait creates the child run with the same input, and so the same payload and key reach the
 * engine. A node in mode `off` fails at once and nothing is created (as a `kind: external` run in mode off is
 * refused before anything is written). Nothing here reaches the engine: the child run's own Start, Observe and
 * Finish check the graph workflow's live policy before each side effect (external/run/live-policy.ts: the same
 * node of the latest graph version caps the node's mode; disabled, deleted or gone → the child ends `denied`).
 */
import { MAX_EXTERNAL_PAYLOAD_BYTES } from '../external/run/key.ts';
import { InvocationStepsSpentError, type StepAllowance } from '../graph/expression-bounds.ts';
import { invocationAllowance } from '../graph/expressions.ts';
import type { GraphStep } from '../schemas/graph-step.ts';
import { renderArgs } from './expressions.ts';
import type { ExternalTaskNode } from './external-view.ts';
import type { RunData } from './run-data.ts';

/** The rendered payload is stored on the step and the child run: it must leave room in their items. */
export { MAX_EXTERNAL_PAYLOAD_BYTES };

/**
 * The wait outlasts the child's own deadline (`timeoutSeconds`) by this much: at its deadline the child cancels
 * the engine's execution and answers the step itself; the wait's `TimeoutSeconds` is only a backstop.
 */
export const EXTERNAL_WAIT_MARGIN_SECONDS = 300;

export const externalWaitSeconds = (timeoutSeconds: number): number =>
  timeoutSeconds + EXTERNAL_WAIT_MARGIN_SECONDS;

export type ExternalStart = {
  status: 'running' | 'failed';
  fields: Partial<GraphStep>;
  reason?: string;
};

const failed = (attempt: number, name: string, message: string): ExternalStart => ({
  status: 'failed',
  fields: { attempt, error: { name, message } },
  reason: message,
});

/** `allowance`: the steps the invocation's expressions may still take (decideNext passes its decision's). */
export async function startExternalStep(
  node: ExternalTaskNode,
  attempt: number,
  data: RunData,
  allowance: StepAllowance = invocationAllowance(),
): Promise<ExternalStart> {
  if (node.mode === 'off')
    return failed(
      attempt,
      'ExternalModeOff',
      `step ${node.id} is in mode off: nothing is dispatched (set mode to shadow, report_only or live)`,
    );
  let payload: unknown;
  try {
    payload = await renderArgs(`step ${node.id} payload`, node.payload, data, allowance);
  } catch (error) {
    if (error instanceof InvocationStepsSpentError) throw error;
    return failed(attempt, 'TemplateRenderError', (error as Error).message);
  }
  const bytes = Buffer.byteLength(JSON.stringify(payload), 'utf8');
  if (bytes > MAX_EXTERNAL_PAYLOAD_BYTES)
    return failed(
      attempt,
      'PayloadTooLarge',
      `step ${node.id} payload is ${bytes} bytes once rendered; the limit is ${MAX_EXTERNAL_PAYLOAD_BYTES}`,
    );
  return { status: 'running', fields: { attempt, input: { payload } } };
}
