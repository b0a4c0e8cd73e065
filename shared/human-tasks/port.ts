/**
 * The graph executor's view of human tasks (h/graph-run's `HumanTaskPort`): `request` opens the step attempt's
 * task from what the executor already evaluated (context, expiry) and sends the links; `close` closes a step's
 * open task when its run is cancelled. Both are idempotent.
 */
import { type HumanTaskPort, unconfiguredHumanTasks } from '../graph-run/human-task-port.ts';
import { closeHumanTasks, type HumanTaskCloseDeps } from './close.ts';
import { contextOf } from './context.ts';
import { openHumanTask, type RequestHumanTaskDeps, type RequestHumanTaskResult } from './request.ts';

/** The executor's request and port, as the graph executor declares them (one definition, no copy). */
export type { HumanTaskRequest as GraphHumanTaskRequest } from '../graph-run/human-task-port.ts';
export type GraphHumanTaskPort = HumanTaskPort;

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
        ...(task.waitFence === undefined ? {} : { waitFence: task.waitFence }),
        title: task.title,
        assignees: task.assignees,
        form: task.form,
        context: contextOf(task.context),
        expiresAt: task.expiresAt,
      });
      onRequest?.(result);
    },
    async close({ runId, stepId }) {
      await closeHumanTasks(deps, { runId, stepId, reason: 'run_cancelled' });
    },
  };
}

/**
 * A port that only closes tasks (a cancelled run's): for the api, which never opens a task and so holds
 * neither the signing keyring nor the approval topic. Requesting through it fails closed.
 */
export function humanTaskCloser(deps: HumanTaskCloseDeps): GraphHumanTaskPort {
  return {
    request: (task) => unconfiguredHumanTasks.request(task),
    async close({ runId, stepId }) {
      await closeHumanTasks(deps, { runId, stepId, reason: 'run_cancelled' });
    },
  };
}

/**
 * The port on a service built at first use (a cold start that only starts child runs or waits on a resume
 * reads no keyring); a failed build is tried again on the next request.
 */
export function lazyHumanTaskPort(build: () => Promise<GraphHumanTaskPort>): GraphHumanTaskPort {
  let port: Promise<GraphHumanTaskPort> | undefined;
  const get = () => {
    port ??= build().catch((error: unknown) => {
      port = undefined;
      throw error;
    });
    return port;
  };
  return {
    request: async (task) => (await get()).request(task),
    close: async (args) => (await get()).close(args),
  };
}
