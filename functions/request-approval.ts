/**
 * `RequestApproval` (`lambda:invoke.waitForTaskToken`): stores the task token on the run's pending approvals
 * and sends each approver a signed link. The execution then waits for SendTaskSuccess or its timeout.
 */
import { type RequestApprovalDeps, requestApproval } from '../shared/approvals-http/index.ts';
import { waitFence } from '../shared/graph-run/wait-fence.ts';
import { requestApprovalDeps } from '../shared/runtime/aws/request-approval.ts';
import { RequestApprovalEventSchema } from '../shared/runtime/events.ts';
import { handlerTelemetry, type LambdaContextLike, withInvocation } from '../shared/runtime/telemetry.ts';
import { tracedHandler } from '../shared/runtime/tracing.ts';

export function createRequestApprovalHandler(
  deps: () => Promise<RequestApprovalDeps>,
  telemetry = handlerTelemetry(),
) {
  return async (event: unknown, context?: LambdaContextLike): Promise<{ status: string }> => {
    // The event holds the task token: only the run id goes on the log lines.
    const { runId, turn, taskToken, approvalId, turnOutcome, wait } = RequestApprovalEventSchema.parse(event);
    return withInvocation(
      telemetry,
      { runId, turn },
      async () => {
        const result = await requestApproval(await deps(), {
          runId,
          taskToken,
          approvalId,
          approvalIds: turnOutcome?.approvalIds,
          // The entry is the turn (a graph step's wait: 0): an approval is waited on in one entry of its
          // state only, since a wait ends only once it is no longer pending.
          fence: wait ? waitFence(turn, wait) : undefined,
        });
        return { status: result.status };
      },
      context,
    );
  };
}

export const handler = tracedHandler('request-approval', createRequestApprovalHandler(requestApprovalDeps));
