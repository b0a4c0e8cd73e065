/** `Turn`: one model turn of a run (shared/core/turn.ts). Returns the outcome the state machine routes on. */
import type { TurnDeps } from '../shared/core/engine.ts';
import type { TurnOutcome } from '../shared/core/outcome.ts';
import { RunConflictError } from '../shared/core/store-errors.ts';
import { runTurn } from '../shared/core/turn.ts';
import { awsRuntime } from '../shared/runtime/aws.ts';
import { TurnPointerSchema } from '../shared/runtime/events.ts';

export function createTurnHandler(deps: () => Promise<TurnDeps>) {
  return async (event: unknown): Promise<TurnOutcome> => {
    const pointer = TurnPointerSchema.parse(event);
    const turnDeps = await deps();
    // A concurrent write (a cancel, a decision) moved the run: read it again; the fence makes this safe.
    for (let attempt = 1; ; attempt++) {
      try {
        return await runTurn(turnDeps, pointer);
      } catch (error) {
        if (!(error instanceof RunConflictError) || attempt >= 3) throw error;
      }
    }
  };
}

export const handler = createTurnHandler(() => awsRuntime().turn());
