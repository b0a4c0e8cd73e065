/**
 * Workflow routes that read or change a head without a new definition: list, get (head + latest published
 * definition), get one version, enable, disable, delete. Creating a workflow and saving or publishing versions
 * parse and validate a definition: workflow-writes.ts (their own function on AWS). Each change to a head is
 * fenced on the head as read (its `rev`) and followed by a trigger sync from the head as it is then.
 */
import { Hono } from 'hono';
import type { WorkflowHead } from '../../schemas/workflow-record.ts';
import { validateQuery } from '../body.ts';
import { type ApiDeps, type ApiEnv, isoNow } from '../deps.ts';
import { notFound } from '../errors.ts';
import { checkedToken, tokenShapes } from '../pagination.ts';
import { ListWorkflowHeadsQuerySchema } from '../schemas.ts';
import { loadHead, loadVersion, syncTriggers } from '../workflow-access.ts';
import { withSummaries } from '../workflow-summary.ts';

export function workflowRoutes(deps: ApiDeps): Hono<ApiEnv> {
  const app = new Hono<ApiEnv>();

  app.get('/', async (c) => {
    const { owner } = c.get('identity');
    const query = validateQuery(c, ListWorkflowHeadsQuerySchema);
    const nextToken = checkedToken(query.nextToken, tokenShapes.workflows(owner));
    const page = await deps.store.listWorkflows(owner, {
      ...(query.limit !== undefined ? { limit: query.limit } : {}),
      ...(nextToken !== undefined ? { nextToken } : {}),
    });
    if (query.include !== 'summary') return c.json(page);
    return c.json({ ...page, items: await withSummaries(deps, page.items) });
  });

  app.get('/:id', async (c) => {
    const head = await loadHead(deps, c.get('identity').owner, c.req.param('id'));
    return c.json({ workflow: head, version: await loadVersion(deps, head, head.latestVersion) });
  });

  app.get('/:id/versions/:version', async (c) => {
    const head = await loadHead(deps, c.get('identity').owner, c.req.param('id'));
    const raw = c.req.param('version');
    if (!/^[1-9]\d{0,9}$/.test(raw)) throw notFound('version');
    return c.json({ version: await loadVersion(deps, head, Number(raw)) });
  });

  const setEnabled = (enabled: boolean) =>
    app.post(`/:id/${enabled ? 'enable' : 'disable'}`, async (c) => {
      const { owner, principal } = c.get('identity');
      const head = await loadHead(deps, owner, c.req.param('id'));
      // Fenced on the head as read (its `rev`): a write in between makes this one a 409.
      const next =
        head.enabled === enabled
          ? head
          : await deps.store.updateWorkflowHead(
              head,
              { ...head, enabled, updatedAt: isoNow(deps.clock) },
              false,
              principal,
            );
      // Synced even when unchanged: enabling again repairs a schedule or rule that a failed sync left behind.
      // From the head as it is now, not `next`: a later write's sync must not be undone by this one.
      await syncTriggers(deps, owner, head.workflowId);
      return c.json({ workflow: next });
    });
  setEnabled(true);
  setEnabled(false);

  app.delete('/:id', async (c) => {
    const { owner, principal } = c.get('identity');
    const head = await loadHead(deps, owner, c.req.param('id'));
    const deleted: WorkflowHead = { ...head, enabled: false, deleted: true, updatedAt: isoNow(deps.clock) };
    // Releases the name, so a new workflow may take it; runs in flight stop at their next turn.
    const next = await deps.store.updateWorkflowHead(head, deleted, true, principal);
    await syncTriggers(deps, owner, head.workflowId);
    return c.json({ workflow: next });
  });

  return app;
}
