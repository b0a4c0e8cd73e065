/** The owner's approvals, newest first, never with their Step Functions task tokens. */
import { Hono } from 'hono';
import { validateQuery } from '../body.ts';
import type { ApiDeps, ApiEnv } from '../deps.ts';
import { checkedToken, tokenShapes } from '../pagination.ts';
import { ListApprovalsQuerySchema, PublicApprovalSchema } from '../schemas.ts';

export function approvalRoutes(deps: ApiDeps): Hono<ApiEnv> {
  const app = new Hono<ApiEnv>();
  app.get('/', async (c) => {
    const { owner } = c.get('identity');
    const query = validateQuery(c, ListApprovalsQuerySchema);
    const nextToken = checkedToken(query.nextToken, tokenShapes.approvals(owner));
    const page = await deps.store.listApprovals({
      owner,
      ...(query.status !== undefined ? { status: query.status } : {}),
      ...(query.limit !== undefined ? { limit: query.limit } : {}),
      ...(nextToken !== undefined ? { nextToken } : {}),
    });
    // Parsing with the public schema drops the task token (zod strips keys the schema does not name).
    return c.json({ ...page, items: page.items.map((approval) => PublicApprovalSchema.parse(approval)) });
  });
  return app;
}
