/**
 * Workflow routes: create (version 1), list, get (head + latest definition), get one version, add a version,
 * enable, disable, delete. Each change to a head or latest version is followed by a trigger sync.
 */
import { Hono } from 'hono';
import { foreignCredentialRefs } from '../../credentials/owner-check.ts';
import { ExternalEngineUnavailableError } from '../../external/index.ts';
import { type AnyWorkflowDefinition, isAgentDefinition } from '../../schemas/any-workflow.ts';
import type { Destination } from '../../schemas/destination.ts';
import type { WorkflowHead, WorkflowVersion } from '../../schemas/workflow-record.ts';
import { newWorkflowRecords, WorkflowIdSchema } from '../../schemas/workflow-record.ts';
import { type EventPattern, stampedPatternSizeIssue } from '../../triggers/index.ts';
import { checkApproversReachable } from '../approver-reach.ts';
import { readDefinitionBody, validate, validateHeader, validateQuery } from '../body.ts';
import { type ApiDeps, type ApiEnv, isoNow } from '../deps.ts';
import { ApiError, invalid, notFound } from '../errors.ts';
import { checkedToken, tokenShapes } from '../pagination.ts';
import { IfMatchSchema, ListWorkflowsQuerySchema, WorkflowDefinitionBodySchema } from '../schemas.ts';

/** The live head of one of `owner`'s workflows; a malformed, foreign, missing or deleted id is the same 404. */
export async function loadHead(deps: ApiDeps, owner: string, workflowId: string): Promise<WorkflowHead> {
  if (!WorkflowIdSchema.safeParse(workflowId).success) throw notFound('workflow');
  const head = await deps.store.getWorkflowHead(owner, workflowId);
  if (!head || head.deleted) throw notFound('workflow');
  return head;
}

async function loadVersion(deps: ApiDeps, head: WorkflowHead, version: number): Promise<WorkflowVersion> {
  const found = await deps.store.getWorkflowVersion(head.owner, head.workflowId, version);
  if (!found) throw notFound('version');
  return found;
}

/** An event pattern must fit EventBridge's size quota as the rule sends it: with this owner's stamp added. */
function checkStampedPattern(definition: AnyWorkflowDefinition, owner: string): void {
  if (definition.trigger.type !== 'event') return;
  const issue = stampedPatternSizeIssue(definition.trigger.pattern as EventPattern, owner);
  if (issue)
    throw invalid([{ path: 'trigger.pattern', message: issue.message }], 'invalid workflow definition');
}

/**
 * An alert topic must be one the deployment declares: Deliver may publish to those only (IAM), so a run
 * naming another would end without its alert. Refused at save time, naming the field.
 */
function checkAlertTopic(deps: ApiDeps, definition: { destination: Destination }): void {
  const { destination } = definition;
  if (destination.type !== 'alert' || destination.topicArn === undefined) return;
  const allowed = deps.alertTopicArns ?? [];
  if (allowed.includes(destination.topicArn)) return;
  throw invalid([
    {
      path: 'destination.topicArn',
      message:
        allowed.length === 0
          ? 'this deployment declares no alert topics: omit topicArn to use the default alert topic'
          : `must be one of the alert topics this deployment declares: ${allowed.join(', ')}`,
    },
  ]);
}

const syncTriggers = (deps: ApiDeps, head: WorkflowHead, version: WorkflowVersion) =>
  deps.triggerSync.sync({
    owner: head.owner,
    workflowId: head.workflowId,
    name: head.name,
    enabled: head.enabled,
    deleted: head.deleted,
    trigger: version.definition.trigger,
  });

/** A definition may refer only to the owner's own credential secrets: a 400 naming each foreign one. */
function checkCredentialOwnership(deps: ApiDeps, owner: string, definition: AnyWorkflowDefinition): void {
  const fields = foreignCredentialRefs(deps.credentialNamePrefix ?? 'wf/', owner, definition.credRefs);
  if (fields.length > 0) throw invalid(fields, 'invalid workflow definition');
}

/** Every save-time check beyond the schema: each refusal is a 400 naming the field, and nothing is written. */
function checkDefinition(deps: ApiDeps, owner: string, definition: AnyWorkflowDefinition): void {
  checkStampedPattern(definition, owner);
  checkAlertTopic(deps, definition);
  checkCredentialOwnership(deps, owner, definition);
  if (isAgentDefinition(definition)) checkApproversReachable(definition, deps.approverReach);
  if (definition.kind === 'external') {
    checkEngineEnabled(deps, definition.engine);
    // Deliver's HTTP destinations resolve a connector of an agent definition; an external one has none.
    if (definition.destination.type === 'http')
      throw invalid(
        [{ path: 'destination.type', message: 'external workflows deliver to stored, report or alert' }],
        'invalid workflow definition',
      );
  }
}

/**
 * An external workflow's engine must be registered and enabled in this deployment: a run of it could not
 * start otherwise. Refused at save time as a 400 naming `engine`; no registry means no engine is enabled.
 */
function checkEngineEnabled(deps: ApiDeps, engine: string): void {
  try {
    if (!deps.externalEngines)
      throw new ExternalEngineUnavailableError(
        engine,
        'engine',
        'disabled',
        `engine '${engine}' is not enabled in this deployment (no external engines are configured)`,
      );
    deps.externalEngines.check(engine, 'engine');
  } catch (error) {
    if (!(error instanceof ExternalEngineUnavailableError)) throw error;
    throw invalid(
      [{ path: 'engine', message: error.message.replace(/^engine: /, '') }],
      'invalid workflow definition',
    );
  }
}

export function workflowRoutes(deps: ApiDeps): Hono<ApiEnv> {
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
    await syncTriggers(deps, head, version);
    return c.json({ workflow: head, version }, 201, { Location: `/v1/workflows/${workflowId}` });
  });

  app.get('/', async (c) => {
    const { owner } = c.get('identity');
    const query = validateQuery(c, ListWorkflowsQuerySchema);
    const nextToken = checkedToken(query.nextToken, tokenShapes.workflows(owner));
    const page = await deps.store.listWorkflows(owner, {
      ...(query.limit !== undefined ? { limit: query.limit } : {}),
      ...(nextToken !== undefined ? { nextToken } : {}),
    });
    return c.json(page);
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

  app.post('/:id/versions', async (c) => {
    const { owner, principal } = c.get('identity');
    const definition = validate(
      WorkflowDefinitionBodySchema,
      await readDefinitionBody(c),
      'invalid workflow definition',
    );
    checkDefinition(deps, owner, definition);
    const basedOn = validateHeader(c, 'If-Match', IfMatchSchema);
    const head = await loadHead(deps, owner, c.req.param('id'));
    if (definition.name !== head.name) {
      throw invalid([{ path: 'name', message: `must stay '${head.name}': a workflow cannot be renamed` }]);
    }
    if (basedOn !== undefined && basedOn !== head.latestVersion) {
      throw new ApiError(
        412,
        'version_mismatch',
        `the latest version is ${head.latestVersion}, not ${basedOn}`,
      );
    }
    const now = isoNow(deps.clock);
    const next: WorkflowHead = { ...head, latestVersion: head.latestVersion + 1, updatedAt: now };
    const version: WorkflowVersion = {
      schemaVersion: 1,
      owner,
      workflowId: head.workflowId,
      version: next.latestVersion,
      definition,
      createdAt: now,
      author: principal,
    };
    // Fenced on the latest version that was read: a concurrent new version makes this one a 409.
    await deps.store.addWorkflowVersion(head, next, version);
    await syncTriggers(deps, next, version);
    return c.json({ workflow: next, version }, 201);
  });

  const setEnabled = (enabled: boolean) =>
    app.post(`/:id/${enabled ? 'enable' : 'disable'}`, async (c) => {
      const { owner, principal } = c.get('identity');
      const head = await loadHead(deps, owner, c.req.param('id'));
      const next = head.enabled === enabled ? head : { ...head, enabled, updatedAt: isoNow(deps.clock) };
      if (next !== head) await deps.store.updateWorkflowHead(head, next, false, principal);
      // Synced even when unchanged: enabling again repairs a schedule or rule that a failed sync left behind.
      await syncTriggers(deps, next, await loadVersion(deps, next, next.latestVersion));
      return c.json({ workflow: next });
    });
  setEnabled(true);
  setEnabled(false);

  app.delete('/:id', async (c) => {
    const { owner, principal } = c.get('identity');
    const head = await loadHead(deps, owner, c.req.param('id'));
    const version = await loadVersion(deps, head, head.latestVersion);
    const next: WorkflowHead = { ...head, enabled: false, deleted: true, updatedAt: isoNow(deps.clock) };
    // Releases the name, so a new workflow may take it; runs in flight stop at their next turn.
    await deps.store.updateWorkflowHead(head, next, true, principal);
    await syncTriggers(deps, next, version);
    return c.json({ workflow: next });
  });

  return app;
}
