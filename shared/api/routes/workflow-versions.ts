/**
 * Saving versions: `POST /{id}/versions` adds a published version (runs start on it, triggers follow it) or,
 * with `?draft=true`, a draft; `PUT /{id}/versions/{v}` replaces the open draft in place;
 * `POST /{id}/versions/{v}/publish` publishes it (immutable from then on). At most one draft is open: it holds
 * the next version number, so a published save waits until it is published. Drafts get every save-time check
 * a published version gets, and again when published (the deployment may have changed meanwhile).
 */
import { type Context, Hono } from 'hono';
import type { AnyWorkflowDefinition } from '../../schemas/any-workflow.ts';
import type { WorkflowHead, WorkflowVersion } from '../../schemas/workflow-record.ts';
import type { WorkflowStore } from '../../store/workflow-store.ts';
import { validate, validateHeader, validateQuery } from '../body.ts';
import { readDefinitionBody } from '../definition-body.ts';
import { type ApiDeps, type ApiEnv, isoNow } from '../deps.ts';
import { ApiError, invalid, notFound } from '../errors.ts';
import { loadHead, loadVersion, syncTriggers } from '../workflow-access.ts';
import { checkDefinition, type DefinitionCheckDeps } from '../workflow-checks.ts';
import { IfMatchSchema, SaveVersionQuerySchema, WorkflowDefinitionBodySchema } from '../write-schemas.ts';

/**
 * What the workflow-write routes use: the workflow store (workflows and versions only: the Api function's
 * `DynamoStore` is one, WorkflowWrite's is no more), the clock and ids, the trigger sync and the save-time checks.
 */
export type WorkflowWriteDeps = { store: WorkflowStore } & Pick<ApiDeps, 'clock' | 'ids' | 'triggerSync'> &
  DefinitionCheckDeps;

const draftOpen = (head: WorkflowHead) =>
  new ApiError(
    409,
    'draft_open',
    `version ${head.draftVersion} is an open draft: replace it (PUT /v1/workflows/${head.workflowId}/versions/${head.draftVersion}) or publish it first`,
  );

async function readDefinition(
  c: Context<ApiEnv>,
  deps: WorkflowWriteDeps,
  head: WorkflowHead,
): Promise<AnyWorkflowDefinition> {
  const definition = validate(
    WorkflowDefinitionBodySchema,
    await readDefinitionBody(c),
    'invalid workflow definition',
  );
  checkDefinition(deps, head.owner, definition);
  if (definition.name !== head.name) {
    throw invalid([{ path: 'name', message: `must stay '${head.name}': a workflow cannot be renamed` }]);
  }
  return definition;
}

/** The open draft named in the path: 404 when there is no such version, 409 when it is published. */
async function loadDraft(deps: WorkflowWriteDeps, head: WorkflowHead, raw: string): Promise<WorkflowVersion> {
  if (!/^[1-9]\d{0,9}$/.test(raw)) throw notFound('version');
  const version = await loadVersion(deps, head, Number(raw));
  if (version.status !== 'draft' || head.draftVersion !== version.version) {
    throw new ApiError(
      409,
      'version_published',
      `version ${raw} is published and immutable: save a new version`,
    );
  }
  return version;
}

export function workflowVersionRoutes(deps: WorkflowWriteDeps): Hono<ApiEnv> {
  const app = new Hono<ApiEnv>();

  app.post('/:id/versions', async (c) => {
    const { owner, principal } = c.get('identity');
    const { draft } = validateQuery(c, SaveVersionQuerySchema);
    const basedOn = validateHeader(c, 'If-Match', IfMatchSchema);
    const head = await loadHead(deps, owner, c.req.param('id'));
    const definition = await readDefinition(c, deps, head);
    if (basedOn !== undefined && basedOn !== head.latestVersion) {
      throw new ApiError(
        412,
        'version_mismatch',
        `the latest version is ${head.latestVersion}, not ${basedOn}`,
      );
    }
    if (head.draftVersion !== undefined) throw draftOpen(head);
    const now = isoNow(deps.clock);
    const number = head.latestVersion + 1;
    const base = {
      schemaVersion: 1,
      owner,
      workflowId: head.workflowId,
      version: number,
      definition,
      createdAt: now,
      author: principal,
    } as const;
    if (draft === 'true') {
      const withDraft: WorkflowHead = { ...head, draftVersion: number, updatedAt: now };
      const version: WorkflowVersion = { ...base, status: 'draft', updatedAt: now };
      const next = await deps.store.saveWorkflowDraft(head, withDraft, version, principal);
      return c.json({ workflow: next, version }, 201);
    }
    const version: WorkflowVersion = { ...base, status: 'published' };
    // Fenced on the head as read (its `rev`): a concurrent new version, draft or toggle makes this one a 409,
    // never a write that puts back what the other changed (an `enabled` just turned off).
    const next = await deps.store.addWorkflowVersion(
      head,
      { ...head, latestVersion: number, updatedAt: now },
      version,
    );
    await syncTriggers(deps, owner, head.workflowId);
    return c.json({ workflow: next, version }, 201);
  });

  app.put('/:id/versions/:version', async (c) => {
    const { owner, principal } = c.get('identity');
    const head = await loadHead(deps, owner, c.req.param('id'));
    const definition = await readDefinition(c, deps, head);
    const previous = await loadDraft(deps, head, c.req.param('version'));
    const version: WorkflowVersion = {
      ...previous,
      definition,
      author: principal,
      updatedAt: isoNow(deps.clock),
    };
    await deps.store.replaceWorkflowDraft(head, previous, version, principal);
    return c.json({ workflow: head, version });
  });

  app.post('/:id/versions/:version/publish', async (c) => {
    const { owner, principal } = c.get('identity');
    const head = await loadHead(deps, owner, c.req.param('id'));
    const draft = await loadDraft(deps, head, c.req.param('version'));
    checkDefinition(deps, owner, draft.definition);
    const now = isoNow(deps.clock);
    const { draftVersion: _closed, ...rest } = head;
    const published: WorkflowVersion = {
      ...draft,
      status: 'published',
      publishedAt: now,
      publishedBy: principal,
    };
    // Fenced on the head as read (its `rev`) and on the draft as read.
    const next = await deps.store.publishWorkflowDraft(
      head,
      { ...rest, latestVersion: draft.version, updatedAt: now },
      draft,
      published,
    );
    await syncTriggers(deps, owner, head.workflowId);
    return c.json({ workflow: next, version: published });
  });

  return app;
}
