/**
 * `RequestHumanTask` (the graph's `human_task` step, `lambda:invoke.waitForTaskToken`): opens the step attempt's
 * task (or stores the newer token on it) and sends each assignee a signed link. The execution then waits for
 * SendTaskSuccess `{ output }`, a SendTaskFailure `HumanTask.*`, or its timeout.
 */

import { RequestHumanTaskEventSchema } from '../shared/human-tasks/event.ts';
import { type RequestHumanTaskDeps, requestHumanTask } from '../shared/human-tasks/index.ts';
import { awsRuntime } from '../shared/runtime/aws.ts';
import { handlerTelemetry, type LambdaContextLike, withInvocation } from '../shared/runtime/telemetry.ts';
import { tracedHandler } from '../shared/runtime/tracing.ts';

export function createRequestHumanTaskHandler(
  deps: () => Promise<RequestHumanTaskDeps>,
  telemetry = handlerTelemetry(),
) {
  return async (event: unknown, context?: LambdaContextLike): Promise<{ status: string; taskId: string }> => {
    // The event holds the task token: only ids go on the log lines.
    const input = RequestHumanTaskEventSchema.parse(event);
    return withInvocation(
      telemetry,
      { runId: input.runId },
      async () => {
        const result = await requestHumanTask(await deps(), {
          runId: input.runId,
          stepId: input.stepId,
          ...(input.attempt !== undefined ? { attempt: input.attempt } : {}),
          taskToken: input.taskToken,
          node: input.node,
          runData: input.runData,
        });
        return { status: result.status, taskId: result.taskId };
      },
      context,
    );
  };
}

export const handler = tracedHandler(
  'request-human-task',
  createRequestHumanTaskHandler(() => awsRuntime().requestHumanTask()),
);
