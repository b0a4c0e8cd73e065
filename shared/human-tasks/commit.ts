/** Fenced commits of human-task changes: the record and its audit entries move together, or not at all. */
import { RunHandle } from '../core/engine.ts';
import { RunConflictError } from '../core/store-errors.ts';
import type { AuditInput } from '../core/store-port.ts';
import type { HumanTask, HumanTaskStatus } from '../schemas/human-task.ts';
import { isTerminalRunStatus, type Run } from '../schemas/run.ts';
import type { HumanTaskDeps } from './deps.ts';

/** A task record to write: created when `expectedStatus` is absent, else conditional on that status. */
export type TaskWrite = { task: HumanTask; expectedStatus?: HumanTaskStatus };
/** What to return, and what to write first (nothing when both lists are empty or absent). */
export type TaskPlan<T> = { result: T; writes?: TaskWrite[]; audit?: AuditInput[] };

/**
 * Reads the run, lets `plan` decide what to write, and commits it fenced on the run's revision together with
 * the tasks' own conditions. A write that moved the run meanwhile makes it read and plan again.
 */
export async function commitTaskChange<T>(
  deps: Pick<HumanTaskDeps, 'store' | 'clock'>,
  runId: string,
  plan: (run: Run | undefined) => Promise<TaskPlan<T>>,
): Promise<T> {
  for (let attempt = 1; ; attempt++) {
    const run = await deps.store.getRun(runId);
    const { result, writes = [], audit = [] } = await plan(run);
    if (writes.length === 0 && audit.length === 0) return result;
    if (run === undefined) throw new Error(`run ${runId} is missing; a human-task change needs its run`);
    try {
      await new RunHandle(run, deps).commit({ humanTaskPut: writes, audit });
      return result;
    } catch (error) {
      if (!(error instanceof RunConflictError) || attempt >= 5) throw error;
    }
  }
}

/** Whether a run can still take a submission: it exists and has not ended. */
export const runIsLive = (run: Run | undefined): run is Run =>
  run !== undefined && !isTerminalRunStatus(run.status);
