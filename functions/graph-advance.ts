/**
 * `Advance` of the graph state machine: reads the run's steps, decides what runs next (shared/graph-run).
 * Also `CompleteStep` (records an agent or human step's answer, or its timeout) — the same store-only code.
 */
import { advanceGraphRun } from '../shared/graph-run/advance.ts';
import type { CompleteStepDeps } from '../shared/graph-run/complete-step.ts';
import { completeStep } from '../shared/graph-run/complete-step.ts';
import { GraphPointerSchema, StepCompleteEventSchema } from '../shared/graph-run/events.ts';
import type { GraphNext } from '../shared/graph-run/ports.ts';
import { awsRuntime } from '../shared/runtime/aws.ts';
import { handlerTelemetry, type LambdaContextLike, withInvocation } from '../shared/runtime/telemetry.ts';
import { tracedHandler } from '../shared/runtime/tracing.ts';

export function createGraphAdvanceHandler(
  deps: () => Promise<CompleteStepDeps>,
  telemetry = handlerTelemetry(),
) {
  return async (
    event: unknown,
    context?: LambdaContextLike,
  ): Promise<(GraphNext & { runId: string }) | { recorded: string }> => {
    const isCompletion = typeof event === 'object' && event !== null && 'stepId' in event;
    const runId = GraphPointerSchema.parse(event).runId;
    return withInvocation(
      telemetry,
      { runId },
      async () => {
        if (isCompletion) {
          const { decide: _decide, ...completion } = StepCompleteEventSchema.parse(event);
          return { recorded: await completeStep(await deps(), completion) };
        }
        const next = await advanceGraphRun(await deps(), runId);
        telemetry.logger.info('graph advanced', { next: next.next });
        return { runId, ...next };
      },
      context,
    );
  };
}

export const handler = tracedHandler(
  'graph-advance',
  createGraphAdvanceHandler(() => awsRuntime().graph()),
);
