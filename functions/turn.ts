/** `Turn`: one model turn of a run (shared/core/turn.ts). Returns the outcome the state machine routes on. */
import type { TurnDeps } from '../shared/core/engine.ts';
import type { TurnInput, TurnOutcome } from '../shared/core/outcome.ts';
import { RunConflictError } from '../shared/core/store-errors.ts';
import { runTurn } from '../shared/core/turn.ts';
import { type RemainingTime, withInvocationDeadline } from '../shared/runtime/aws/invocation-deadline.ts';
import { turnDeps } from '../shared/runtime/aws/turn.ts';
import { TurnEventSchema } from '../shared/runtime/events.ts';
import { turnPoint } from '../shared/runtime/run-metrics.ts';
import {
  handlerTelemetry,
  type LambdaContextLike,
  recordPoints,
  withInvocation,
} from '../shared/runtime/telemetry.ts';
import { tracedHandler } from '../shared/runtime/tracing.ts';
import { loadWebFetch } from '../shared/runtime/web-fetch.ts';

// Every turn calls the model through the SDK's fetch: load it at init (shared/runtime/web-fetch.ts).
loadWebFetch();

export function createTurnHandler(deps: () => Promise<TurnDeps>, telemetry = handlerTelemetry()) {
  return async (
    event: unknown,
    context?: LambdaContextLike & Partial<RemainingTime>,
  ): Promise<TurnOutcome> => {
    const { execution, state, ...parsed } = TurnEventSchema.parse(event);
    const headHint = execution?.headHint;
    const readHint = state?.readHint;
    const pointer: TurnInput = {
      ...parsed,
      ...(headHint ? { headHint } : {}),
      ...(readHint ? { readHint } : {}),
    };
    const keys = { runId: pointer.runId, turn: pointer.turn };
    // The model call ends before Lambda's timeout would, with time left to record it (invocation-deadline.ts).
    return withInvocationDeadline(context, () =>
      withInvocation(
        telemetry,
        keys,
        async () => {
          try {
            const outcome = await turnWithRetries(await deps(), pointer);
            recordPoints(telemetry.metrics, [turnPoint(outcome)]);
            const stopReason = outcome.next === 'failed' ? { stopReason: outcome.stopReason } : {};
            telemetry.logger.info('turn finished', { next: outcome.next, ...stopReason });
            return outcome;
          } catch (error) {
            recordPoints(telemetry.metrics, [turnPoint('error')]);
            throw error;
          }
        },
        context,
      ),
    );
  };
}

/** A concurrent write (a cancel, a decision) moved the run: read it again; the fence makes this safe. */
async function turnWithRetries(deps: TurnDeps, pointer: TurnInput): Promise<TurnOutcome> {
  for (let attempt = 1; ; attempt++) {
    try {
      return await runTurn(deps, pointer);
    } catch (error) {
      if (!(error instanceof RunConflictError) || attempt >= 3) throw error;
    }
  }
}

export const handler = tracedHandler('turn', createTurnHandler(turnDeps));
