/**
 * `HumanTask` of the graph machine: records a `human_task` step's wait and opens its task, sending each
 * assignee a signed link (shared/graph-run/wait.ts, shared/human-tasks). The only graph function that holds
 * the link-signing key; graph-wait (child runs, AwaitResume) does not.
 */
import { StepWaitEventSchema } from '../shared/graph-run/events.ts';
import { type HumanTaskWaitDeps, startHumanTaskWait } from '../shared/graph-run/wait.ts';
import { humanTaskWaitDeps } from '../shared/runtime/aws/human-task-wait.ts';
import { handlerTelemetry, type LambdaContextLike, withInvocation } from '../shared/runtime/telemetry.ts';
import { tracedHandler } from '../shared/runtime/tracing.ts';

export function createHumanTaskHandler(
  deps: () => Promise<HumanTaskWaitDeps>,
  telemetry = handlerTelemetry(),
) {
  return async (event: unknown, context?: LambdaContextLike): Promise<{ started: string }> => {
    const { decide: _decide, ...wait } = StepWaitEventSchema.parse(event);
    if (wait.type !== 'human_task') throw new Error(`type: ${wait.type} is not a human task`);
    return withInvocation(
      telemetry,
      { runId: wait.runId },
      async () => {
        const started = await startHumanTaskWait(await deps(), wait);
        telemetry.logger.info('human task wait started', { stepId: wait.stepId, started });
        return { started };
      },
      context,
    );
  };
}

export const handler = tracedHandler('human-task', createHumanTaskHandler(humanTaskWaitDeps));
