/**
 * What `MarkFailed` does: records `failed` with stop reason `error` (and the error that got there) unless the
 * run already ended, answering any open tool calls so the transcript stays valid. Idempotent.
 */
import { isTerminalRunStatus, type Run } from '../schemas/run.ts';
import { isoAt, RunHandle, releaseReservation } from './engine.ts';
import type { Clock } from './ports.ts';
import { RunConflictError } from './store-errors.ts';
import type { RunStore } from './store-port.ts';
import { toolResultContent, toolUsesOf } from './transcript.ts';

export async function markRunFailed(
  deps: { store: RunStore; clock: Clock },
  args: { runId: string; error?: { name: string; message: string } },
): Promise<Run | undefined> {
  for (let attempt = 1; ; attempt++) {
    const run = await deps.store.getRun(args.runId);
    if (!run || isTerminalRunStatus(run.status)) return run;
    const messages = await deps.store.listMessages(run.runId);
    const last = messages.at(-1);
    const open = last?.role === 'assistant' && toolUsesOf(last).length > 0 ? last : undefined;
    const ledger = open
      ? new Map((await deps.store.listLedger(run.runId)).map((row) => [row.toolUseId, row.outcome]))
      : new Map();
    const error = args.error ?? { name: 'Error', message: 'the run failed' };
    const outcomes = new Map(
      open
        ? toolUsesOf(open).map((use) => [
            use.id,
            ledger.get(use.id) ?? { content: `Not executed: the run failed (${error.name}).`, isError: true },
          ])
        : [],
    );
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
                  content: toolResultContent(open, outcomes),
                  createdAt: isoAt(deps.clock),
                },
              ],
            }
          : {}),
        next: (current) => ({
          ...current,
          status: 'failed',
          stopReason: 'error',
          error,
          endedAt: isoAt(deps.clock),
          lastNext: 'failed',
          pendingApprovalIds: [],
          reservation: undefined,
          messageCount: current.messageCount + (open ? 1 : 0),
        }),
        audit: [
          {
            type: 'error',
            actor: 'system',
            data: { name: error.name, message: error.message.slice(0, 1000) },
          },
          {
            type: 'status_changed',
            actor: 'system',
            data: { from: run.status, to: 'failed', stopReason: 'error' },
          },
        ],
      });
      return handle.run;
    } catch (caught) {
      if (!(caught instanceof RunConflictError) || attempt >= 5) throw caught;
    }
  }
}
