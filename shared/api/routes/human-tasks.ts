/**
 * The owner's human tasks (graph `human_task` steps), newest first, never with their task tokens. The links
 * the assignees were sent are not stored, so no answer here can carry one.
 */
import { Hono } from 'hono';
import { fittingCount, LISTING_PAGE_BYTES } from '../../runs/step-page.ts';
import { encodeToken } from '../../store/index.ts';
import { indexKeys, keys } from '../../store/keys.ts';
import { validateQuery } from '../body.ts';
import type { ApiDeps, ApiEnv } from '../deps.ts';
import { checkedToken, tokenShapes } from '../pagination.ts';
import { ListHumanTasksQuerySchema, PublicHumanTaskSchema } from '../schemas.ts';

export function humanTaskRoutes(deps: ApiDeps): Hono<ApiEnv> {
  const app = new Hono<ApiEnv>();
  app.get('/', async (c) => {
    const { owner } = c.get('identity');
    const query = validateQuery(c, ListHumanTasksQuerySchema);
    const nextToken = checkedToken(query.nextToken, tokenShapes.humanTasks(owner));
    const page = await deps.store.listOwnerHumanTasks({
      owner,
      ...(query.status !== undefined ? { status: query.status } : {}),
      ...(query.limit !== undefined ? { limit: query.limit } : {}),
      ...(nextToken !== undefined ? { nextToken } : {}),
    });
    // Parsing with the public schema drops the task token (zod strips keys the schema does not name).
    const items = page.items.map((task) => PublicHumanTaskSchema.parse(task));
    // A task shows up to 20 context values of 4,000 characters: 100 of them can pass Lambda's 6 MB
    // (https://docs.aws.amazon.com/lambda/latest/dg/gettingstarted-limits.html). A page keeps the tasks that
    // fit, and the next one starts after the last kept (its index key, as DynamoDB would have issued it).
    const count = fittingCount(items, LISTING_PAGE_BYTES);
    const last = page.items[count - 1];
    if (count === items.length || !last) return c.json({ ...page, items });
    const next = encodeToken({
      ...keys.humanTask(last.runId, last.stepId, last.attempt),
      ...indexKeys.humanTaskByOwner(owner, last.createdAt, last.taskId),
    });
    return c.json({ items: items.slice(0, count), nextToken: next });
  });
  return app;
}
