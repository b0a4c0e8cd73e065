/**
 * The jobs sweep's deadline from the Lambda context: Lambda ends an invocation at the function's timeout
 * (https://docs.aws.amazon.com/lambda/latest/dg/configuration-timeout.html) and reports the time left through
 * the context's `getRemainingTimeInMillis()` (https://docs.aws.amazon.com/lambda/latest/dg/nodejs-context.html).
 * The sweep (shared/jobs) keeps its own margin (SWEEP_TIME_MARGIN_MS); a sweep that stops for lack of time is
 * counted (`JobsSweepStoppedEarly`) and logged here, so the core knows neither Lambda nor metrics.
 */
import type { SweepDeadline } from '../jobs/sweep-scope.ts';
import type { RemainingTime } from './aws/invocation-deadline.ts';
import { recordPoints, type Telemetry } from './telemetry.ts';

/** The deadline of the invocation of `context`; undefined without one (a test, the local stack): no limit. */
export function lambdaSweepDeadline(
  telemetry: Telemetry,
  context: Partial<RemainingTime> | undefined,
): SweepDeadline | undefined {
  const remaining = context?.getRemainingTimeInMillis;
  if (typeof remaining !== 'function') return undefined;
  return {
    remainingMs: () => remaining.call(context),
    stoppedEarly(progress) {
      recordPoints(telemetry.metrics, [{ name: 'JobsSweepStoppedEarly', value: 1 }]);
      telemetry.logger.warn('jobs sweep stopped early: out of time; the next sweep goes on from here', {
        ...progress,
      });
    },
  };
}
