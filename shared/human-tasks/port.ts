/**
 * The graph executor's view of human tasks (h/graph-run's `HumanTaskPort`): `request` opens the step attempt's
 * task from what the executor already evaluated (context, expiry) and sends the links; `close` closes a step's
 * open task when its run is cancelled. Both are idempotent.
 */
import { closeHumanTasks } from './close.ts';
import { contextOf } from './context.ts';
import { openHumanTask, type RequestHumanTaskDeps, type RequestHumanTaskResult } from './request.ts';

/** The executor's request (the shape of graph-run's `HumanTaskRequest`). */
export type GraphHumanTaskRequest = {
  owner: string;
  runId: string;
  stepId: string;
  attempt: number;
  workflowId: string;
  workflowName: string;
  taskToken: string;
  title: string;
  assignees: string[];
  form: Record<string, unknown>;
  /** The node's `context` paths, evaluated: path → value. */
  context: Record<string, unknown>;
  /** When the wait times out: the task and its links expire then. */
  expiresAt: string;
};

export type GraphHumanTaskPort = {
  request(task: GraphHumanTaskRequest): Promise<void>;
  close(args: { owner: string; runId: string; stepId: string }): Promise<void>;
};

/** The port on this deployment's human-task service; `onRequest` sees each outcome (tests, logs). */
export function humanTaskPort(
  deps: RequestHumanTaskDeps,
  onRequest?: (result: RequestHumanTaskResult) => void,
): GraphHumanTaskPort {
  return {
    async request(task) {
      // The run's owner and workflow are read from the run item itself, never taken from the request.
      const result = await openHumanTask(deps, {
        runId: task.runId,
        stepId: task.stepId,
        attempt: task.attempt,
        taskToken: task.taskToken,
        title: task.title,
        assignees: task.assignees,
        form: task.form,
        context: async () => contextOf(task.context),
        expiresAt: () => task.expiresAt,
      });
      onRequest?.(result);
    },
    async close({ runId, stepId }) {
      await closeHumanTasks(deps, { runId, stepId, reason: 'run_cancelled' });
    },
  };
}
