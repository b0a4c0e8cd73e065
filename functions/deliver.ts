/**
 * `Deliver`: the finished run's result goes to its destination, once. A degraded run (`denied`: calls were
 * refused on the way) is also reported to its owner.
 */
import { type DeliverDeps, deliverResult } from '../shared/core/deliver.ts';
import { type OwnerNoticeDeps, runEndedNotice, sendOwnerNotice } from '../shared/notify/index.ts';
import { awsRuntime } from '../shared/runtime/aws.ts';
import { TurnPointerSchema } from '../shared/runtime/events.ts';
import { handlerTelemetry, type LambdaContextLike, withInvocation } from '../shared/runtime/telemetry.ts';
import { tracedHandler } from '../shared/runtime/tracing.ts';
import type { Run } from '../shared/schemas/run.ts';

export function createDeliverHandler(
  deps: () => Promise<
    DeliverDeps & {
      owners?: OwnerNoticeDeps | undefined;
      /** A graph step's child run answers its parent step's wait (shared/graph-run/parent-answer.ts). */
      answerParent?: ((run: Run) => Promise<unknown>) | undefined;
    }
  >,
  telemetry = handlerTelemetry(),
) {
  return async (event: unknown, context?: LambdaContextLike): Promise<{ delivered: string | undefined }> => {
    const { runId } = TurnPointerSchema.parse(event);
    return withInvocation(
      telemetry,
      { runId },
      async () => {
        const { owners, answerParent, ...core } = await deps();
        const run = await deliverResult(core, runId);
        if (run?.parent && answerParent) await answerParent(run);
        const delivered = run?.delivery?.destination;
        telemetry.logger.info('result delivered', { destination: delivered });
        if (run?.status === 'denied') {
          await sendOwnerNotice(
            owners?.notifier,
            runEndedNotice(run, owners?.apiBaseUrl ?? ''),
            telemetry.logger,
          );
        }
        return { delivered };
      },
      context,
    );
  };
}

export const handler = tracedHandler(
  'deliver',
  createDeliverHandler(async () => {
    const owners = awsRuntime().ownerNotices();
    return {
      ...(await awsRuntime().deliver()),
      ...(owners ? { owners } : {}),
      answerParent: awsRuntime().answerParent,
    };
  }),
);
