/**
 * The owner's human tasks (graph `human_task` steps), newest first, never with their task tokens. The links
 * the assignees were sent are not stored, so no answer here can carry one.
 */
import { Hono } from 'hono';
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
    return c.json({ ...page, items: page.items.map((task) => PublicHumanTaskSchema.parse(task)) });
  });
  return app;
}
