/** `Expire`: the approval wait timed out; pending approvals become `expired` (fail closed). */
import { expireApprovals } from '../shared/core/approval-ops.ts';
import type { Clock } from '../shared/core/ports.ts';
import type { RunStore } from '../shared/core/store-port.ts';
import { awsRuntime } from '../shared/runtime/aws.ts';
import { systemClock } from '../shared/runtime/clock.ts';
import { TurnPointerSchema } from '../shared/runtime/events.ts';
import { handlerTelemetry, type LambdaContextLike, withInvocation } from '../shared/runtime/telemetry.ts';
import { tracedHandler } from '../shared/runtime/tracing.ts';

export function createExpireHandler(
  deps: () => { store: RunStore; clock: Clock },
  telemetry = handlerTelemetry(),
) {
  return async (event: unknown, context?: LambdaContextLike): Promise<{ expired: number }> => {
    const { runId } = TurnPointerSchema.parse(event);
    return withInvocation(
      telemetry,
      { runId },
      async () => {
        const expired = await expireApprovals(deps(), runId);
        telemetry.logger.info('approval wait timed out', { expired });
        return { expired };
      },
      context,
    );
  };
}

export const handler = tracedHandler(
  'expire',
  createExpireHandler(() => ({ store: awsRuntime().store, clock: systemClock })),
);
