/**
 * The delegated-jobs sweep (docs/jobs.md), run every minute by an EventBridge rule: gives back the slots of
 * jobs whose runs ended, starts the runs a crash left unstarted, and promotes queued jobs into free slots
 * (retries whose wait is over included); and first settles API, schedule and event starts left `pending`
 * (shared/runs/pending-sweep.ts).
 * Run also when a run execution ends (the run-ended rule): then it
 * settles that run's job and promotes the next queued job of its grant at once. Idempotent: every step is a
 * conditional write.
 */

import { DEFAULT_PRICES } from '../shared/core/pricing.ts';
import { settleJobOfRun, sweepJobs, sweepRequestOf } from '../shared/jobs/index.ts';
import { DEFAULT_MODEL_CONFIG } from '../shared/model/resolve.ts';
import { awsExecutions } from '../shared/runtime/aws/executions.ts';
import type { RemainingTime } from '../shared/runtime/aws/invocation-deadline.ts';
import { awsSigningStore } from '../shared/runtime/aws/signing-store.ts';
import { randomIds, systemClock } from '../shared/runtime/clock.ts';
import { lambdaSweepDeadline } from '../shared/runtime/jobs-sweep-deadline.ts';
import { pendingRunsStep } from '../shared/runtime/pending-sweep-step.ts';
import { handlerTelemetry, type LambdaContextLike, withInvocation } from '../shared/runtime/telemetry.ts';
import { grantScope } from '../shared/runtime/telemetry-observers.ts';
import { tracedHandler } from '../shared/runtime/tracing.ts';

export function createJobsSweepHandler(
  deps: () => Parameters<typeof sweepJobs>[0],
  telemetry = handlerTelemetry(),
) {
  return async (event: unknown, context?: LambdaContextLike & Partial<RemainingTime>) =>
    withInvocation(
      telemetry,
      {},
      async () => {
        const request = sweepRequestOf(event);
        if (request.kind === 'run_ended') {
          await settleJobOfRun(deps(), request.runId);
          telemetry.logger.info('run ended: job settled', { runId: request.runId });
          return { runId: request.runId };
        }
        // API, schedule and event starts a crash or a failed start left pending (docs/api.md): first, within its
        // own time budget; never throws.
        await pendingRunsStep(deps(), telemetry);
        // Stops before the timeout and goes on from there next time (docs/jobs.md, "The sweep's time").
        const swept = await sweepJobs(deps(), grantScope(telemetry), lambdaSweepDeadline(telemetry, context));
        telemetry.logger.info('jobs swept', swept);
        return swept;
      },
      context,
    );
}

export const handler = tracedHandler(
  'jobs-sweep',
  createJobsSweepHandler(() => {
    return {
      // Ending a job's run or an unstarted start anchors its head: the owner's heads are signed after it.
      store: awsSigningStore(),
      executions: awsExecutions(),
      clock: systemClock,
      ids: randomIds,
      models: { prices: DEFAULT_PRICES, roles: { ...DEFAULT_MODEL_CONFIG.roles } },
    };
  }),
);
