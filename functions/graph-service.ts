/** A `service_task` step of a graph run: one gated action call under the ledger (shared/graph-run/service-step.ts). */
import { StepRefSchema } from '../shared/graph-run/events.ts';
import type { GraphNext } from '../shared/graph-run/ports.ts';
import { runServiceStep, type ServiceStepDeps } from '../shared/graph-run/service-step.ts';
import { awsRuntime } from '../shared/runtime/aws.ts';
import { handlerTelemetry, type LambdaContextLike, withInvocation } from '../shared/runtime/telemetry.ts';
import { tracedHandler } from '../shared/runtime/tracing.ts';

export function createGraphServiceHandler(
  deps: () => Promise<ServiceStepDeps>,
  telemetry = handlerTelemetry(),
) {
  return async (event: unknown, context?: LambdaContextLike): Promise<GraphNext & { runId: string }> => {
    const { decide, ...ref } = StepRefSchema.parse(event);
    return withInvocation(
      telemetry,
      { runId: ref.runId },
      async () => {
        const next = await runServiceStep(await deps(), ref, { decide });
        telemetry.logger.info('service step finished', { stepId: ref.stepId, next: next.next });
        return { runId: ref.runId, ...next };
      },
      context,
    );
  };
}

export const handler = tracedHandler(
  'graph-service',
  createGraphServiceHandler(() => awsRuntime().graphService()),
);
