/**
 * Human-task reads: one by id and a run's all (strongly consistent), an owner's newest first (GSI, eventually
 * consistent). Writes go through `commit` (`humanTaskPut`), which also sets the owner index keys.
 */
import {
  type HumanTask,
  HumanTaskSchema,
  type HumanTaskStatus,
  parseHumanTaskId,
} from '../schemas/human-task.ts';
import type { StoreContext } from './client.ts';
import { keys, prefixes } from './keys.ts';
import { getItem, type Page, queryIndexPage, queryPrefix } from './reads.ts';
import { TABLE_KEYS } from './table.ts';

/** The task with this id; undefined for a missing task and for anything that is not a task id. */
export async function getHumanTask(ctx: StoreContext, taskId: string): Promise<HumanTask | undefined> {
  const parsed = parseHumanTaskId(taskId);
  if (!parsed) return undefined;
  return getItem(ctx, keys.humanTask(parsed.runId, parsed.stepId, parsed.attempt), HumanTaskSchema);
}

/** Every human task of a run, by step and attempt. */
export const listRunHumanTasks = (ctx: StoreContext, runId: string): Promise<HumanTask[]> =>
  queryPrefix(ctx, keys.run(runId).pk, prefixes.humanTask, HumanTaskSchema);

/** One page of the owner's human tasks, newest first, optionally only those in `status`. */
export function listOwnerHumanTasks(
  ctx: StoreContext,
  query: { owner: string; status?: HumanTaskStatus; limit?: number; nextToken?: string },
): Promise<Page<HumanTask>> {
  return queryIndexPage(
    ctx,
    TABLE_KEYS.byOwner,
    {
      pk: `OWNER#${query.owner}`,
      prefix: prefixes.humanTask,
      ...(query.status ? { status: query.status } : {}),
      limit: query.limit ?? 50,
      nextToken: query.nextToken,
    },
    HumanTaskSchema,
  );
}
