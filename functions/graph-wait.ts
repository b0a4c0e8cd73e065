/** `AgentTask` and `HumanTask` of the graph machine: start the wait's child run or human task (shared/graph-run/wait.ts). */
import { AwaitResumeEventSchema, StepWaitEventSchema } from '../shared/graph-run/events.ts';
import { awaitResume, type GraphWaitDeps, startStepWait } from '../shared/graph-run/wait.ts';
import { awsRuntime } from '../shared/runtime/aws.ts';
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

export const handler = tracedHandler(
  'graph-wait',
  createGraphWaitHandler(() => awsRuntime().graphWait()),
);
