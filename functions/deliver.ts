/** `Deliver`: the finished run's result goes to its destination, once. */
import { type DeliverDeps, deliverResult } from '../shared/core/deliver.ts';
import { awsRuntime } from '../shared/runtime/aws.ts';
import { TurnPointerSchema } from '../shared/runtime/events.ts';

export function createDeliverHandler(deps: () => Promise<DeliverDeps>) {
  return async (event: unknown): Promise<{ delivered: string | undefined }> => {
    const { runId } = TurnPointerSchema.parse(event);
    const run = await deliverResult(await deps(), runId);
    return { delivered: run?.delivery?.destination };
  };
}

export const handler = createDeliverHandler(() => awsRuntime().deliver());
