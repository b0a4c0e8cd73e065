/**
 * The routes that take a workflow definition: create (version 1) here, save a version or draft, replace a
 * draft and publish it in workflow-versions.ts. Each parses the body (JSON or YAML), validates it with every
 * save-time check and writes conditionally; nothing is half-written. On AWS they are the WorkflowWrite
 * function (shared/api/workflow-write-routes.ts), so the Api function bundles no YAML parser, Ajv or JSONata.
 */
import { Hono } from 'hono';
import { newWorkflowRecords } from '../../schemas/workflow-record.ts';
import { validate } from '../body.ts';
import { readDefinitionBody } from '../definition-body.ts';
import { type ApiEnv, isoNow } from '../deps.ts';
import { syncTriggers } from '../workflow-access.ts';
import { checkDefinition } from '../workflow-checks.ts';
import { WorkflowDefinitionBodySchema } from '../write-schemas.ts';
import { type WorkflowWriteDeps, workflowVersionRoutes } from './workflow-versions.ts';

export type { WorkflowWriteDeps } from './workflow-versions.ts';

export function workflowWriteRoutes(deps: WorkflowWriteDeps): Hono<ApiEnv> {
  const app = new Hono<ApiEnv>();

  app.post('/', async (c) => {
    const { owner, principal } = c.get('identity');
    const definition = validate(
      WorkflowDefinitionBodySchema,
      await readDefinitionBody(c),
      'invalid workflow definition',
    );
    checkDefinition(deps, owner, definition);
    const now = isoNow(deps.clock);
    const workflowId = deps.ids.next('wf');
    // Audited with its author in the same transaction (the owner's workflow-change chain).
    const { head, version } = newWorkflowRecords({ owner, workflowId, definition, now, author: principal });
    await deps.store.createWorkflow(head, version);
    await syncTriggers(deps, owner, workflowId);
    return c.json({ workflow: head, version }, 201, { Location: `/v1/workflows/${workflowId}` });
  });

  app.route('/', workflowVersionRoutes(deps));
  return app;
}
