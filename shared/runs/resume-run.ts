/**
 * Resuming a run that was in flight when the local stack stopped: a fresh execution from the run's stored
 * turn (the turn fence makes that safe), recorded on the run so a later cancel stops the right execution.
 */
import { RunConflictError } from '../core/store-errors.ts';
import { isTerminalRunStatus, type Run } from '../schemas/run.ts';
import type { DynamoStore } from '../store/index.ts';
import { derivedExecutionName } from './execution-name.ts';
import type { ExecutionsPort } from './ports.ts';
import { startExecutionFor } from './start-run.ts';

export async function resumeRun(
  deps: { store: DynamoStore; executions: ExecutionsPort },
  run: Run,
  suffix: string,
): Promise<string> {
  const { executionArn } = await startExecutionFor(
    deps.executions,
    run,
    derivedExecutionName(run.runId, 'resume', suffix),
  );
  let current: Run | undefined = run;
  for (let attempt = 1; current && !isTerminalRunStatus(current.status); attempt++) {
    try {
      // The fresh execution is the current one now, not a continuation the run recorded before.
      const { continuedAs: _earlier, ...rest } = current;
      await deps.store.commit({ run: current, next: { ...rest, executionArn } });
      break;
    } catch (error) {
      if (!(error instanceof RunConflictError) || attempt >= 5) throw error;
      current = await deps.store.getRun(run.runId);
    }
  }
  return executionArn;
}
