/**
 * The workflow-write part of the API (workflow-write-routes.ts lists its routes): creating workflows, saving,
 * replacing and publishing versions.
 * `createWorkflowWriteApp` is the WorkflowWrite function's app (functions/workflow-write.ts).
 */
import type { Hono } from 'hono';
import { type ApiPart, composeApiApp } from './compose.ts';
import type { ApiDeps, ApiEnv } from './deps.ts';
import { type WorkflowWriteDeps, workflowWriteRoutes } from './routes/workflow-writes.ts';

export type WorkflowWriteAppDeps = WorkflowWriteDeps & Pick<ApiDeps, 'authenticator'>;

export function workflowWritePart(deps: WorkflowWriteDeps): ApiPart {
  return {
    mount(app) {
      app.route('/v1/workflows', workflowWriteRoutes(deps));
    },
  };
}

export function createWorkflowWriteApp(deps: WorkflowWriteAppDeps): Hono<ApiEnv> {
  return composeApiApp(deps.authenticator, [workflowWritePart(deps)]);
}
