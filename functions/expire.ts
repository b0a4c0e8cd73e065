/** `Expire`: the approval wait timed out; pending approvals become `expired` (fail closed). */
import { expireApprovals } from '../shared/core/approval-ops.ts';
import type { Clock } from '../shared/core/ports.ts';
import type { RunStore } from '../shared/core/store-port.ts';
import { awsRuntime } from '../shared/runtime/aws.ts';
import { systemClock } from '../shared/runtime/clock.ts';
import { TurnPointerSchema } from '../shared/runtime/events.ts';

export function createExpireHandler(deps: () => { store: RunStore; clock: Clock }) {
  return async (event: unknown): Promise<{ expired: number }> => {
    const { runId } = TurnPointerSchema.parse(event);
    return { expired: await expireApprovals(deps(), runId) };
  };
}

export const handler = createExpireHandler(() => ({ store: awsRuntime().store, clock: systemClock }));
