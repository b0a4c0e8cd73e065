/**
 * The Task states of the external state machine (docs/state-machine.md, "The external machine"): `ExternalStart`,
 * `ExternalObserve`, `ExternalFinish` and `AbandonExternal` (a step failed for good: cancel the engine's
 * execution, then end the run), told apart by `step`. Each answers the run pointer with `next`
 * (and `waitSeconds` for the Wait's SecondsPath). A graph step's child run that a step ends answers its parent.
 * A run that Start, Observe or Finish ends `failed` or `denied` (`next: stop`, to `ExternalStopped`: MarkFailed
 * never runs) is told to its owner here, as MarkFailed and Deliver tell an agent run's; AbandonExternal's run is
 * told by MarkExternalFailed, which always follows it.
 */

import type { ExternalNext, ExternalRunDeps } from '../shared/external/run/index.ts';
import {
  abandonExternal,
  answerParentIfEnded,
  finishExternal,
  observeExternal,
  startExternal,
} from '../shared/external/run/index.ts';
import { withConflictRetry } from '../shared/external/run/retry.ts';
import { type OwnerNoticeDeps, runEndedNotice, sendOwnerNotice } from '../shared/notify/index.ts';
import { externalRunDeps } from '../shared/runtime/aws/external.ts';
import { awsOwnerNotices } from '../shared/runtime/aws/notices.ts';
import { stepErrorOf } from '../shared/runtime/step-error.ts';
import { handlerTelemetry, type LambdaContextLike, withInvocation } from '../shared/runtime/telemetry.ts';
import { tracedHandler } from '../shared/runtime/tracing.ts';
import * as z from '../shared/zod.ts';

export const ExternalStepEventSchema = z.object({
  runId: z.string().check(z.regex(/^run_[A-Za-z0-9]{6,40}$/)),
  step: z.enum(['start', 'observe', 'finish', 'abandon']),
  /** `abandon` only: the state the failure left, with the Catch's error at `error` when a Catch led there. */
  state: z.optional(
    z.object({
      error: z.optional(z.object({ Error: z.optional(z.string()), Cause: z.optional(z.string()) })),
    }),
  ),
});

const STEPS = { start: startExternal, observe: observeExternal, finish: finishExternal } as const;

export function createExternalHandler(
  deps: () => Promise<ExternalRunDeps & { owners?: OwnerNoticeDeps | undefined }>,
  telemetry = handlerTelemetry(),
) {
  return async (event: unknown, context?: LambdaContextLike): Promise<ExternalNext> => {
    const { runId, step, state } = ExternalStepEventSchema.parse(event);
    return withInvocation(
      telemetry,
      { runId },
      async () => {
        const { owners, ...resolved } = await deps();
        const next = await withConflictRetry(() =>
          step === 'abandon'
            ? abandonExternal(resolved, runId, stepErrorOf(state?.error))
            : STEPS[step](resolved, runId),
        );
        // A graph step's child run that this step ended answers the step's wait.
        const ended = await answerParentIfEnded(resolved, next);
        // Its owner hears of a failed or denied ending (none for done or cancelled), best effort: a failed
        // publish is logged and never changes the answer. At least once: a step retried after it told (a crash)
        // finds its run ended, answers `stop` again and tells again, as a retried MarkFailed does.
        if (ended && step !== 'abandon')
          await sendOwnerNotice(
            owners?.notifier,
            runEndedNotice(ended, owners?.apiBaseUrl ?? ''),
            telemetry.logger,
          );
        telemetry.logger.info('external step', { step, next: next.next });
        return next;
      },
      context,
    );
  };
}

export const handler = tracedHandler(
  'external',
  createExternalHandler(async () => ({ ...(await externalRunDeps()), owners: awsOwnerNotices() })),
);
