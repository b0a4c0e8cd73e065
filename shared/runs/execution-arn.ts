/**
 * A run's execution ARN. A run's first execution is named after the run (start-run.ts), and an execution's ARN
 * follows from its state machine and its name (ExecutionsPort.arnOf), so that ARN is known from the run's
 * creation and is not stored: ~100 bytes less on every write of the run item, which keeps a typical run item
 * under DynamoDB's 1 KB write unit (docs/data-model.md), and no write after the start that could race turn 0's
 * first commit. The run item stores `executionArn` only for an execution named otherwise (a resumed run's, a
 * reopened graph run's), and items written before this release keep the one they recorded. A continue-as-new
 * is recorded by its name's part after `<runId>-` (`continuedAs`, shared/core/live-execution.ts): its ARN is
 * derived the same way.
 */
import type { Run } from '../schemas/run.ts';
import type { ExecutionsPort } from './ports.ts';

/** The name of the run's current execution when it is derived (not recorded by its ARN). */
export const currentExecutionName = (run: Pick<Run, 'runId' | 'continuedAs'>): string =>
  run.continuedAs === undefined ? run.runId : `${run.runId}-${run.continuedAs}`;

/**
 * The ARN of the run's current execution as the run knows it: its continuation's, else the recorded one, else
 * its first execution's. Undefined when the port cannot derive ARNs and none is recorded.
 */
export function runExecutionArn(executions: Pick<ExecutionsPort, 'arnOf'>, run: Run): string | undefined {
  if (run.continuedAs !== undefined) return executions.arnOf?.(run.kind, currentExecutionName(run));
  return run.executionArn ?? executions.arnOf?.(run.kind, run.runId);
}

/** The run as the API shows it: with its current execution's ARN, recorded or derived. */
export function withExecutionArn(executions: ExecutionsPort, run: Run): Run {
  const executionArn = runExecutionArn(executions, run);
  return executionArn === undefined || executionArn === run.executionArn ? run : { ...run, executionArn };
}

/** The ARN of execution `name` of the state machine another execution ARN `sibling` belongs to. */
export const siblingExecutionArn = (sibling: string, name: string): string =>
  `${sibling.slice(0, sibling.lastIndexOf(':'))}:${name}`;
