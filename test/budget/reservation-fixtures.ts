/**
 * Fixtures of the reservation tests (first-reservation, ahead-reservation, crash-spend): a day-capped
 * workflow, a two-turn script, a model that crashes the Turn after the provider answered, turn 0's input and
 * the day's spend.
 */

import type { TurnAttempt } from '../../shared/core/attempt.ts';
import type { ModelPort, ModelRequest } from '../../shared/core/ports.ts';
import type { WorkflowVersion } from '../../shared/schemas/workflow-record.ts';
import type { DynamoStore } from '../../shared/store/index.ts';
import { CrashError } from '../support/engine.ts';
import { minimalWorkflow, seedWorkflow } from '../support/store.ts';

/** The day `FixedClock` stands on. */
export const DAY = '2026-11-30';
export const USAGE = { input_tokens: 400, output_tokens: 300 };

/** One tool call (notes_append), then a final answer. */
export const loopThenDone = {
  turns: [
    {
      response: {
        content: [{ type: 'tool_use' as const, name: 'notes_append', input: { name: 'log', line: 'x' } }],
        usage: USAGE,
      },
    },
    { response: { content: [{ type: 'text' as const, text: 'done' }], usage: USAGE } },
  ],
};

/** A workflow capped at $1 a run and `maxUsdPerDay` a day. */
export const seedCappedWorkflow = (store: DynamoStore, maxUsdPerDay = 5) =>
  seedWorkflow(store, minimalWorkflow({ budget: { maxUsdPerRun: 1, maxUsdPerDay } }));

/** The day's spend and reservations of `version`'s workflow. */
export const daySpend = (store: DynamoStore, version: WorkflowVersion) =>
  store.getDaySpendDetail(version.owner, version.workflowId, DAY);

/** Turn 0's input, with `attempt` if the invocation reports one. */
export const turnZero = (runId: string, attempt?: TurnAttempt) => ({
  runId,
  turn: 0,
  segmentStartTurn: 0,
  ...(attempt ? { attempt } : {}),
});

/** The real adapter; call number `crashOn` crashes the Turn after the scripted server answered it. */
export function crashingAfterAnswer(real: ModelPort, crashOn = 1): ModelPort & { calls: number } {
  return {
    calls: 0,
    maxOutputTokens: (request) => real.maxOutputTokens!(request),
    async call(request: ModelRequest) {
      this.calls++;
      const response = await real.call(request);
      if (this.calls === crashOn) throw new CrashError('after the provider answered');
      return response;
    },
  };
}
