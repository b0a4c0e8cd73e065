/**
 * The errors a human task's wait can fail with (`SendTaskFailure`), for the graph state machine's `Catch`.
 * A wait that simply runs out of time fails with Step Functions' own `States.Timeout`.
 */
import { HUMAN_TASK_EXPIRED_ERROR } from '../graph-run/human-task-port.ts';

export const HUMAN_TASK_ERRORS = {
  /** The task had already expired when its wait was (re-)requested: treat like `States.Timeout`. */
  expired: HUMAN_TASK_EXPIRED_ERROR,
  /** The task was closed (run cancelled or ended) before a submission. */
  closed: 'HumanTask.Closed',
  /** The run ended before the task could be opened. */
  runEnded: 'HumanTask.RunEnded',
  /** No assignee could be sent a link: nobody can submit, so the step fails at once (fail closed). */
  undeliverable: 'HumanTask.Undeliverable',
} as const;
