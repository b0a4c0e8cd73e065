/**
 * Cancelling a run: a fenced transition to `cancelled`, then its execution is stopped, a graph step's child run
 * answers its parent step's wait, and, for a graph run, its open steps are closed (child runs cancelled, human
 * tasks closed).
 *
 * The transition is the cancel: once it is committed, what follows is carried out whatever else fails. The
 * anchor of the run's final head may fail (a contended owner chain, KMS refusing to sign): it is reported
 * (`cancel anchor deferred`, a WARN log line, counted by the store's `faults`: the CancelAnchorsDeferred metric
 * on AWS) and the cancel goes on; the head is anchored later, by a repeated
 * cancel, by the stopped execution's ABORTED event (shared/runs/execution-ended.ts) or, once the anchor lost a
 * round to another run of the owner, by that owner's next group commit (shared/store/anchors.ts). The execution
 * is stopped whenever the run is `cancelled`, a repeated cancel included (the first may have failed before its
 * stop): stopping an execution that already ended is not an error (ExecutionsPort.stop).
 *
 * A child run's own end (Deliver, MarkFailed) answers its parent step, but a cancelled child's stopped execution
 * passes neither, and its ABORTED event finds the run ended by the cancel: the cancel answers the step itself,
 * on every cancel too (the step's wait is answered once: CompleteStep drops its token, a closed token is fine).
 */
import { endRun } from '../core/end-run.ts';
import type { Clock } from '../core/ports.ts';
import { requestExternalCancel } from '../external/run/request-cancel.ts';
import { cancelGraphSteps, type GraphOperationsDeps } from '../graph-run/operations.ts';
import { answerParentStep } from '../graph-run/parent-answer.ts';
import { isTerminalRunStatus, type Run } from '../schemas/run.ts';
import type { DynamoStore } from '../store/index.ts';
import { runExecutionArn } from './execution-arn.ts';
import type { ExecutionsPort } from './ports.ts';

export type CancelRunDeps = {
  store: DynamoStore;
  executions: ExecutionsPort;
  clock: Clock;
  /**
   * Graph runs: what closes their steps (child runs, human tasks), and answers a child run's parent step
   * (`taskTokens`); without it a graph's steps stay as they were and a child's parent step waits on.
   */
  graph?: Omit<GraphOperationsDeps, 'store' | 'executions' | 'clock'>;
  /** Where a deferred anchor is reported; default: a structured WARN line on stderr (the function's log). */
  anchorDeferred?: (run: Run, error: unknown) => void;
};

/**
 * Rounds a cancel contends for its owner's anchor chain head before it defers the anchor (shared/store/anchors.ts:
 * a wait of at most 5 × 2^attempt ms after each of the first 7 rounds, 10 + 20 + … + 640 = 1,270 ms in all): a
 * cancel answers a client within the api function's 29 s timeout (infra/constructs/workflow-runtime-props.ts),
 * itself under the HTTP API's 30 s maximum integration timeout
 * (https://docs.aws.amazon.com/apigateway/latest/developerguide/http-api-quotas.html), and a graph's cancel
 * waits so once per child run it cancels.
 */
export const CANCEL_ANCHOR_ATTEMPTS = 8;

const logDeferred = (run: Run, error: unknown) =>
  console.warn(
    JSON.stringify({
      level: 'WARN',
      message: 'cancel anchor deferred',
      runId: run.runId,
      error: { name: (error as Error)?.name, message: (error as Error)?.message },
    }),
  );

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
  const run = await endRun(
    { store: deps.store, clock: deps.clock },
    {
      runId: args.runId,
      status: 'cancelled',
      stopReason: 'cancelled',
      why: 'the run was cancelled',
      actor: args.actor,
      audit: [{ type: 'cancel_requested', actor: args.actor, data: {} }],
      accept: (candidate) => candidate.owner === args.owner,
      anchorAttempts: CANCEL_ANCHOR_ATTEMPTS,
      anchorFailed: (ended, error) => {
        (deps.anchorDeferred ?? logDeferred)(ended, error);
        deps.store.faults.cancelAnchorDeferred?.();
      },
    },
  );
  if (run?.status !== 'cancelled') return run;
  // Every step is tried, each failure after the others: a repeated cancel carries out what one left undone.
  const failures: unknown[] = [];
  // The execution, on every cancel of a cancelled run (a finished execution is not an error to stop).
  const executionArn = runExecutionArn(deps.executions, run);
  if (executionArn)
    await deps.executions.stop(executionArn, 'cancelled by owner').catch((error) => failures.push(error));
  // A graph step's child run: its parent step's wait learns it ended cancelled (the step fails, ChildRunEnded).
  if (run.parent && deps.graph)
    await answerParentStep({ store: deps.store, taskTokens: deps.graph.taskTokens }, run).catch((error) =>
      failures.push(error),
    );
  // A graph run: running child runs are cancelled too, waiting human tasks closed, open steps `cancelled`.
  if (run.kind === 'graph' && deps.graph) {
    const ops = { ...deps.graph, store: deps.store, executions: deps.executions, clock: deps.clock };
    await cancelGraphSteps(ops, run, (childRunId) => cancelRun(deps, { ...args, runId: childRunId })).catch(
      (error) => failures.push(error),
    );
  }
  if (failures.length > 0) throw failures[0];
  return run;
}
