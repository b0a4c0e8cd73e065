/** `AgentTask`, `ExternalTask` and `AwaitResume` of the graph machine: start the wait's child run, or pause (shared/graph-run/wait.ts). */
import { AwaitResumeEventSchema, StepWaitEventSchema } from '../shared/graph-run/events.ts';
import { awaitResume, type GraphWaitDeps, startStepWait } from '../shared/graph-run/wait.ts';
import { graphWaitDeps } from '../shared/runtime/aws/graph-wait.ts';
import { handlerTelemetry, type LambdaContextLike, withInvocation } from '../shared/runtime/telemetry.ts';
import { tracedHandler } from '../shared/runtime/tracing.ts';

export function createGraphWaitHandler(deps: () => Promise<GraphWaitDeps>, telemetry = handlerTelemetry()) {
  return async (event: unknown, context?: LambdaContextLike): Promise<{ started: string }> => {
    if (typeof event === 'object' && event !== null && !('stepId' in event)) {
      const pause = AwaitResumeEventSchema.parse(event);
      return withInvocation(telemetry, { runId: pause.runId }, async () => ({
        started: await awaitResume(await deps(), pause),
      }));
    }
    const { decide: _decide, ...wait } = StepWaitEventSchema.parse(event);
    return withInvocation(
      telemetry,
      { runId: wait.runId },
      async () => {
        const started = await startStepWait(await deps(), wait);
        telemetry.logger.info('graph wait started', { stepId: wait.stepId, started });
        return { started };
      },
      context,
    );
  };
}

export const handler = tracedHandler('graph-wait', createGraphWaitHandler(graphWaitDeps));
