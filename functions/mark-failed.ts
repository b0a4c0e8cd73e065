/**
 * `MarkFailed`: no run stays `running` forever. Records `failed` unless the run already ended. Every route
 * that ends a run `failed` or `denied` without a result (a Turn's `failed` outcome, an uncaught error) passes
 * here, so this is where the owner is told. Also the target of the execution-ended rule
 * (infra/constructs/execution-ended.ts): an execution of the run or graph machine that ended FAILED, ABORTED
 * or TIMED_OUT without passing here ends its run (shared/runs/execution-ended.ts), with the same answers; a
 * graph step's child run that had ended (cancelled, or its Deliver or MarkFailed failed) answers its step again. A
 * graph run that failed with steps still running has their child runs cancelled (shared/graph-run/end-children.ts).
 */
import { markRunFailed } from '../shared/core/mark-failed.ts';
import type { Clock } from '../shared/core/ports.ts';
import type { RunStore } from '../shared/core/store-port.ts';
import { cancelChildrenOfFailedGraph } from '../shared/graph-run/end-children.ts';
import { humanTaskExpiry } from '../shared/human-tasks/expiry.ts';
import { type OwnerNoticeDeps, runEndedNotice, sendOwnerNotice } from '../shared/notify/index.ts';
import { endedExecutionOf, endRunOfEndedExecution } from '../shared/runs/execution-ended.ts';
import { awsAnswerParent } from '../shared/runtime/aws/answer-parent.ts';
import { awsExecutionStops } from '../shared/runtime/aws/executions.ts';
import { awsOwnerNotices } from '../shared/runtime/aws/notices.ts';
import { awsSigningStore } from '../shared/runtime/aws/signing-store.ts';
import { systemClock } from '../shared/runtime/clock.ts';
import { MarkFailedEventSchema } from '../shared/runtime/events.ts';
import { stepErrorOf } from '../shared/runtime/step-error.ts';
import { handlerTelemetry, type LambdaContextLike, withInvocation } from '../shared/runtime/telemetry.ts';
import { tracedHandler } from '../shared/runtime/tracing.ts';
import type { Run } from '../shared/schemas/run.ts';

export function createMarkFailedHandler(
  deps: () => {
    store: RunStore;
    clock: Clock;
    owners?: OwnerNoticeDeps | undefined;
    /** A graph step's child run answers its parent step's wait (shared/graph-run/parent-answer.ts). */
    answerParent?: ((run: Run) => Promise<unknown>) | undefined;
    /** A failed graph run's steps still running: their child runs are cancelled (shared/graph-run/end-children.ts). */
    endGraphChildren?: ((runId: string) => Promise<unknown>) | undefined;
  },
  telemetry = handlerTelemetry(),
) {
  return async (event: unknown, context?: LambdaContextLike): Promise<{ status: string | undefined }> => {
    const ended = endedExecutionOf(event);
    const { runId, error } = ended
      ? { runId: ended.runId, error: undefined }
      : MarkFailedEventSchema.parse(event);
    return withInvocation(
      telemetry,
      { runId },
      async () => {
        const { owners, answerParent, endGraphChildren, ...core } = deps();
        // An ended execution's run is told about only when this call ended it. A run that had ended (its cancel
        // stopped the execution; its Deliver or MarkFailed failed for good) answers its parent step again, in
        // case what ended it could not (a second answer finds the wait answered: parent-answer.ts).
        const outcome = ended
          ? await endRunOfEndedExecution(core, ended)
          : {
              run: await markRunFailed(core, { runId, ...(error ? { error: stepErrorOf(error) } : {}) }),
              endedHere: true,
            };
        const run = outcome?.endedHere ? outcome.run : undefined;
        telemetry.logger.info('execution failure recorded', {
          error: error?.Error ?? ended?.status,
          status: run?.status,
        });
        if (outcome?.run?.parent && answerParent) await answerParent(outcome.run);
        if (run) {
          const notice = runEndedNotice(run, owners?.apiBaseUrl ?? '');
          await sendOwnerNotice(owners?.notifier, notice, telemetry.logger);
        }
        // After the notice: a fault cancelling the children fails this task, but the owner was told first.
        if (run?.kind === 'graph' && run.status === 'failed' && endGraphChildren)
          await endGraphChildren(runId);
        return { status: run?.status };
      },
      context,
    );
  };
}

export const handler = tracedHandler(
  'mark-failed',
  createMarkFailedHandler(() => ({
    store: awsSigningStore(),
    clock: systemClock,
    owners: awsOwnerNotices(),
    answerParent: awsAnswerParent(awsSigningStore()),
    endGraphChildren: (runId: string) => {
      const deps = { store: awsSigningStore(), clock: systemClock };
      const executions = awsExecutionStops();
      return cancelChildrenOfFailedGraph({ ...deps, humanTasks: humanTaskExpiry(deps), executions }, runId);
    },
  })),
);
