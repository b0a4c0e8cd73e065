/** Human-task reads (strongly consistent): one by id, a run's all. Writes go through `commit` (`humanTaskPut`). */
import { type HumanTask, HumanTaskSchema, parseHumanTaskId } from '../schemas/human-task.ts';
import type { StoreContext } from './client.ts';
import { keys, prefixes } from './keys.ts';
import { getItem, queryPrefix } from './reads.ts';

/** The task with this id; undefined for a missing task and for anything that is not a task id. */
export async function getHumanTask(ctx: StoreContext, taskId: string): Promise<HumanTask | undefined> {
  const parsed = parseHumanTaskId(taskId);
  if (!parsed) return undefined;
  return getItem(ctx, keys.humanTask(parsed.runId, parsed.stepId, parsed.attempt), HumanTaskSchema);
}

/** Every human task of a run, by step and attempt. */
export const listRunHumanTasks = (ctx: StoreContext, runId: string): Promise<HumanTask[]> =>
  queryPrefix(ctx, keys.run(runId).pk, prefixes.humanTask, HumanTaskSchema);
