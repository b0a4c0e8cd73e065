/** Cancelling a run: a fenced transition to `cancelled`, then the execution is stopped. */
import { endRun } from '../core/end-run.ts';
import type { Clock } from '../core/ports.ts';
import { requestExternalCancel } from '../external/run/request-cancel.ts';
import { cancelGraphSteps, type GraphOperationsDeps } from '../graph-run/operations.ts';
import { isTerminalRunStatus, type Run } from '../schemas/run.ts';
import type { DynamoStore } from '../store/index.ts';
import { runExecutionArn } from './execution-arn.ts';
import type { ExecutionsPort } from './ports.ts';

export type CancelRunDeps = {
  store: DynamoStore;
  executions: ExecutionsPort;
  clock: Clock;
  /** Graph runs: what closes their steps (child runs, human tasks); without it their steps stay as they were. */
  graph?: Omit<GraphOperationsDeps, 'store' | 'executions' | 'clock'>;
};

/** Cancels a run of `owner`. Returns undefined for a missing or foreign run; a finished run is returned as is. */
export async function cancelRun(
  deps: CancelRunDeps,
  args: { owner: string; runId: string; actor: string },
): Promise<Run | undefined> {
  // Another owner's run answers as a missing one does, after the same single read, and is not reported to
  // the invocation's telemetry (owner-scoped read: observed-store.ts).
  const before = await deps.store.getOwnRun(args.owner, args.runId);
  if (!before) return undefined;
  // An external run is cancelled through its engine by its own execution (shared/external/run/request-cancel.ts).
  if (before.kind === 'external' && !isTerminalRunStatus(before.status))
    return requestExternalCancel(deps, before, args.actor);
  const run = await endRun(deps, {
    runId: args.runId,
    status: 'cancelled',
    stopReason: 'cancelled',
    why: 'the run was cancelled',
    actor: args.actor,
    audit: [{ type: 'cancel_requested', actor: args.actor, data: {} }],
    accept: (candidate) => candidate.owner === args.owner,
  });
  // Stop the execution only when this call ended the run (a finished run has no execution to stop).
  const executionArn = run && runExecutionArn(deps.executions, run);
  if (run?.status === 'cancelled' && before.status !== 'cancelled' && executionArn) {
    await deps.executions.stop(executionArn, 'cancelled by owner');
  }
  // A graph run: running child runs are cancelled too, waiting human tasks closed, open steps `cancelled`.
  if (run?.status === 'cancelled' && run.kind === 'graph' && deps.graph) {
    const ops = { ...deps.graph, store: deps.store, executions: deps.executions, clock: deps.clock };
    await cancelGraphSteps(ops, run, (childRunId) => cancelRun(deps, { ...args, runId: childRunId }));
  }
  return run;
}
