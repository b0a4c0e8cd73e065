/**
 * What a jobs-sweep invocation asks for. The scheduled rule sends a `Scheduled Event`: sweep every grant. The
 * run-ended rule (infra/constructs/jobs-sweep.ts) sends Step Functions' `Execution Status Change` event for an
 * execution of the run state machine that ended: settle that run's job and promote the next queued one of
 * its grant only. Its `detail.input` is the execution input as a JSON string (a run pointer, `{ runId, … }`;
 * https://docs.aws.amazon.com/step-functions/latest/dg/eventbridge-integration.html). Anything unreadable
 * falls back to the whole sweep: the slower answer, never a skipped one.
 */
import { GENERATED_RUN_ID } from '../schemas/run-id.ts';
import * as z from '../zod.ts';

const StatusChangeSchema = z.object({
  source: z.literal('aws.states'),
  'detail-type': z.literal('Step Functions Execution Status Change'),
  detail: z.object({ input: z.string().check(z.maxLength(262_144)) }),
});

const RunPointerInputSchema = z.object({ runId: z.string().check(z.regex(GENERATED_RUN_ID)) });

export type SweepRequest = { kind: 'run_ended'; runId: string } | { kind: 'all' };

export function sweepRequestOf(event: unknown): SweepRequest {
  const change = StatusChangeSchema.safeParse(event);
  if (!change.success) return { kind: 'all' };
  let input: unknown;
  try {
    input = JSON.parse(change.data.detail.input);
  } catch {
    return { kind: 'all' };
  }
  const pointer = RunPointerInputSchema.safeParse(input);
  return pointer.success ? { kind: 'run_ended', runId: pointer.data.runId } : { kind: 'all' };
}
