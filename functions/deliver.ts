/** `Deliver`: the finished run's result goes to its destination, once. */
import { type DeliverDeps, deliverResult } from '../shared/core/deliver.ts';
import { awsRuntime } from '../shared/runtime/aws.ts';
import { TurnPointerSchema } from '../shared/runtime/events.ts';
import { handlerTelemetry, type LambdaContextLike, withInvocation } from '../shared/runtime/telemetry.ts';
import { tracedHandler } from '../shared/runtime/tracing.ts';

export function createDeliverHandler(deps: () => Promise<DeliverDeps>, telemetry = handlerTelemetry()) {
  return async (event: unknown, context?: LambdaContextLike): Promise<{ delivered: string | undefined }> => {
    const { runId } = TurnPointerSchema.parse(event);
    return withInvocation(
      telemetry,
      { runId },
      async () => {
        const run = await deliverResult(await deps(), runId);
        const delivered = run?.delivery?.destination;
        telemetry.logger.info('result delivered', { destination: delivered });
        return { delivered };
      },
      context,
    );
  };
}

export const handler = tracedHandler(
  'deliver',
  createDeliverHandler(() => awsRuntime().deliver()),
);
