/**
 * How an external step ends, from its child external run's answer (parent-answer.ts) or the error that ended
 * the wait. By the node's mode (docs/graph-workflows.md, "external_task"):
 * - `live`: the child's result (the artifact's text, or the engine's summary) parsed as JSON and validated
 *   against the node's `output` schema is the step's output (without a schema: `{ text }`);
 * - `shadow` (nothing was dispatched) and `report_only` (the engine ran; its result stays on the child run):
 *   the step succeeds with no output, so nothing the engine did or would do reaches later steps;
 * - a child that failed, ended `outcome_unknown` (the work may or may not have happened), timed out or was
 *   cancelled: the step fails with that reason.
 */
import type { GraphStep } from '../schemas/graph-step.ts';
import type { ExternalTaskNode } from './external-view.ts';
import { parseStructuredOutput } from './structured-output.ts';

type Outcome = Pick<GraphStep, 'status'> & Partial<GraphStep>;

type Answer = { status?: unknown; text?: unknown; stopReason?: unknown; error?: unknown };

function failureName(status: string, stopReason: string | undefined): string {
  if (stopReason === 'outcome_unknown') return 'OutcomeUnknown';
  if (stopReason === 'timeout') return 'ExternalTimedOut';
  if (status === 'cancelled') return 'ExternalCancelled';
  return 'ExternalFailed';
}

export function externalStepOutcome(node: ExternalTaskNode, answer: Answer): Outcome {
  const status = String(answer.status);
  const stopReason = typeof answer.stopReason === 'string' ? answer.stopReason : undefined;
  if (status !== 'done') {
    const why = typeof answer.error === 'string' && answer.error !== '' ? `: ${answer.error}` : '';
    return {
      status: 'failed',
      error: {
        name: failureName(status, stopReason),
        message: `the external run ended ${status}${stopReason ? ` (${stopReason})` : ''}${why}`.slice(
          0,
          2000,
        ),
      },
    };
  }
  if (node.mode !== 'live') return { status: 'succeeded' };
  const parsed = parseStructuredOutput(String(answer.text ?? ''), node.output);
  return parsed.ok
    ? { status: 'succeeded', output: parsed.output }
    : { status: 'failed', error: { name: 'InvalidOutput', message: parsed.reason } };
}
