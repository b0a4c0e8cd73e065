/**
 * The delegated-jobs sweep (docs/jobs.md), run every minute by an EventBridge rule: gives back the slots of
 * jobs whose runs ended, starts the runs a crash left unstarted, and promotes queued jobs into free slots
 * (retries whose wait is over included). Idempotent: every step is a conditional write.
 */

import { DEFAULT_PRICES } from '../shared/core/pricing.ts';
import { sweepJobs } from '../shared/jobs/index.ts';
import { DEFAULT_MODEL_CONFIG } from '../shared/model/resolve.ts';
import { awsExecutions } from '../shared/runtime/aws/executions.ts';
import { awsStore } from '../shared/runtime/aws/store.ts';
import { randomIds, systemClock } from '../shared/runtime/clock.ts';
import { handlerTelemetry, type LambdaContextLike, withInvocation } from '../shared/runtime/telemetry.ts';
import { tracedHandler } from '../shared/runtime/tracing.ts';

export function createJobsSweepHandler(
  deps: () => Parameters<typeof sweepJobs>[0],
  telemetry = handlerTelemetry(),
) {
  return async (_event: unknown, context?: LambdaContextLike) =>
    withInvocation(
      telemetry,
      {},
      async () => {
        const swept = await sweepJobs(deps());
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
      store: awsStore(),
      executions: awsExecutions(),
      clock: systemClock,
      ids: randomIds,
      models: { prices: DEFAULT_PRICES, roles: { ...DEFAULT_MODEL_CONFIG.roles } },
    };
  }),
);
