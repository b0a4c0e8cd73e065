/**
 * The local stand-in of the human-task service until shared/human-tasks is wired in: it keeps each requested
 * task (with its wait token) in memory and prints a line; `submit` answers the wait as the form's submit
 * route does, with `SendTaskSuccess(token, { output })` through the local Step Functions endpoint.
 */
import type { HumanTaskPort, HumanTaskRequest } from '../graph-run/human-task-port.ts';

export type LocalHumanTasks = HumanTaskPort & {
  /** The open tasks, newest request per step. */
  open(): HumanTaskRequest[];
  /** The open task of a step, if any. */
  find(runId: string, stepId: string): HumanTaskRequest | undefined;
  /** Submits a task's form: answers its wait with `{ output }`. */
  submit(runId: string, stepId: string, output: Record<string, unknown>): Promise<void>;
};

export function localHumanTasks(
  answer: (token: string, output: object) => Promise<unknown>,
  print: (line: string) => void,
): LocalHumanTasks {
  const tasks = new Map<string, HumanTaskRequest>();
  const key = (runId: string, stepId: string) => `${runId}/${stepId}`;
  return {
    async request(task) {
      tasks.set(key(task.runId, task.stepId), task);
      print(
        `human task '${task.title}' for ${task.assignees.join(', ')} (run ${task.runId}, step ${task.stepId})`,
      );
    },
    async close({ runId, stepId }) {
      tasks.delete(key(runId, stepId));
    },
    open: () => [...tasks.values()],
    find: (runId, stepId) => tasks.get(key(runId, stepId)),
    async submit(runId, stepId, output) {
      const task = tasks.get(key(runId, stepId));
      if (!task) throw new Error(`no open human task for run ${runId} step ${stepId}`);
      tasks.delete(key(runId, stepId));
      await answer(task.taskToken, { output });
    },
  };
}
