/**
 * A run's execution ARN. A run's first execution is named after the run (start-run.ts), and an execution's ARN
 * follows from its state machine and its name (ExecutionsPort.arnOf), so that ARN is known from the run's
 * creation and is not stored: ~100 bytes less on every write of the run item, which keeps a typical run item
 * under DynamoDB's 1 KB write unit (docs/data-model.md), and no write after the start that could race turn 0's
 * first commit. The run item stores `executionArn` only for an execution named otherwise (a resumed run's, a
 * reopened graph run's), and items written before this release keep the one they recorded.
 */
import type { Run } from '../schemas/run.ts';
import type { ExecutionsPort } from './ports.ts';

/** The ARN of the run's current execution as the run knows it: the recorded one, else its first execution's. */
export function runExecutionArn(executions: ExecutionsPort, run: Run): string | undefined {
  return run.executionArn ?? executions.arnOf?.(run.kind, run.runId);
}

/** The run as the API shows it: with its execution ARN, recorded or derived. */
export function withExecutionArn(executions: ExecutionsPort, run: Run): Run {
  if (run.executionArn !== undefined) return run;
  const executionArn = runExecutionArn(executions, run);
  return executionArn === undefined ? run : { ...run, executionArn };
}
