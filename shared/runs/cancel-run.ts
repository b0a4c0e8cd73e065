/** Cancelling a run: a fenced transition to `cancelled`, then the execution is stopped. */
import { isoAt, RunHandle, releaseReservation } from '../core/engine.ts';
import type { Clock } from '../core/ports.ts';
import { RunConflictError } from '../core/store-errors.ts';
import { toolResultContent, toolUsesOf } from '../core/transcript.ts';
import { isTerminalRunStatus, type Run } from '../schemas/run.ts';
import type { DynamoStore } from '../store/index.ts';
import type { ExecutionsPort } from './ports.ts';

export type CancelRunDeps = { store: DynamoStore; executions: ExecutionsPort; clock: Clock };

/** Cancels a run of `owner`. Returns undefined for a missing or foreign run; a finished run is returned as is. */
export async function cancelRun(
  deps: CancelRunDeps,
  args: { owner: string; runId: string; actor: string },
): Promise<Run | undefined> {
  for (let attempt = 1; ; attempt++) {
    const run = await deps.store.getRun(args.runId);
    if (!run || run.owner !== args.owner) return undefined;
    if (isTerminalRunStatus(run.status)) return run;
    const messages = await deps.store.listMessages(run.runId);
    const last = messages.at(-1);
    const open =
      last?.role === 'assistant' && toolUsesOf(last).length > 0 && last.seq === messages.length - 1
        ? last
        : undefined;
    const refusal = { content: 'Not executed: the run was cancelled.', isError: true };
    try {
      const handle = new RunHandle(run, deps);
      const release = releaseReservation(run);
      await handle.commit({
        ...(release ? { daySpend: release } : {}),
        ...(open
          ? {
              messages: [
                {
                  schemaVersion: 1 as const,
                  runId: run.runId,
                  seq: messages.length,
                  turn: run.turn,
                  role: 'user' as const,
                  content: toolResultContent(open, new Map(toolUsesOf(open).map((use) => [use.id, refusal]))),
                  createdAt: isoAt(deps.clock),
                },
              ],
            }
          : {}),
        next: (current) => ({
          ...current,
          status: 'cancelled',
          stopReason: 'cancelled',
          endedAt: isoAt(deps.clock),
          pendingApprovalIds: [],
          reservation: undefined,
          messageCount: current.messageCount + (open ? 1 : 0),
        }),
        audit: [
          { type: 'cancel_requested', actor: args.actor, data: {} },
          {
            type: 'status_changed',
            actor: args.actor,
            data: { from: run.status, to: 'cancelled', stopReason: 'cancelled' },
          },
        ],
      });
      if (run.executionArn) await deps.executions.stop(run.executionArn, 'cancelled by owner');
      return handle.run;
    } catch (error) {
      if (!(error instanceof RunConflictError) || attempt >= 5) throw error;
    }
  }
}
