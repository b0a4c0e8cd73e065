/**
 * `RequestApproval` (`lambda:invoke.waitForTaskToken`): stores the task token on the run's pending approvals
 * and sends each approver a signed link. The execution then waits for SendTaskSuccess or its timeout.
 */
import { type RequestApprovalDeps, requestApproval } from '../shared/approvals-http/index.ts';
import { awsRuntime } from '../shared/runtime/aws.ts';
import { RequestApprovalEventSchema } from '../shared/runtime/events.ts';

export function createRequestApprovalHandler(deps: () => Promise<RequestApprovalDeps>) {
  return async (event: unknown): Promise<{ status: string }> => {
    const { runId, taskToken } = RequestApprovalEventSchema.parse(event);
    const result = await requestApproval(await deps(), { runId, taskToken });
    return { status: result.status };
  };
}

export const handler = createRequestApprovalHandler(() => awsRuntime().requestApproval());
