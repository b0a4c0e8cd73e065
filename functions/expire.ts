/**
 * `Expire`: the approval wait timed out; pending approvals become `expired` (fail closed). The run goes on
 * degraded (the model is told no human decided), so the owner is told of each expired approval now.
 */
import { expireApprovals, pendingApprovals } from '../shared/core/approval-ops.ts';
import type { Clock } from '../shared/core/ports.ts';
import type { RunStore } from '../shared/core/store-port.ts';
import { approvalEndedNotice, type OwnerNoticeDeps, sendOwnerNotice } from '../shared/notify/index.ts';
import { awsOwnerNotices } from '../shared/runtime/aws/notices.ts';
import { awsStore } from '../shared/runtime/aws/store.ts';
import { systemClock } from '../shared/runtime/clock.ts';
import { TurnPointerSchema } from '../shared/runtime/events.ts';
import { handlerTelemetry, type LambdaContextLike, withInvocation } from '../shared/runtime/telemetry.ts';
import { tracedHandler } from '../shared/runtime/tracing.ts';

export function createExpireHandler(
  deps: () => { store: RunStore; clock: Clock; owners?: OwnerNoticeDeps | undefined },
  telemetry = handlerTelemetry(),
) {
  return async (event: unknown, context?: LambdaContextLike): Promise<{ expired: number }> => {
    const { runId } = TurnPointerSchema.parse(event);
    return withInvocation(
      telemetry,
      { runId },
      async () => {
        const { owners, ...core } = deps();
        // Read before and after: only approvals this invocation saw pending and now finds expired are
        // reported, so a retried Expire (nothing pending any more) tells nobody twice.
        const before = await pendingApprovals(core.store, runId);
        const expired = await expireApprovals(core, runId);
        telemetry.logger.info('approval wait timed out', { expired });
        for (const { approvalId } of expired > 0 ? before : []) {
          const approval = await core.store.getApproval(approvalId);
          if (approval?.status !== 'expired') continue;
          const notice = approvalEndedNotice(approval, 'approval_expired', owners?.apiBaseUrl ?? '');
          await sendOwnerNotice(owners?.notifier, notice, telemetry.logger);
        }
        return { expired };
      },
      context,
    );
  };
}

export const handler = tracedHandler(
  'expire',
  createExpireHandler(() => ({
    store: awsStore(),
    clock: systemClock,
    owners: awsOwnerNotices(),
  })),
);
