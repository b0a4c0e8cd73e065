/** The API's operations as data: what openapi.ts turns into paths. Kept next to the routes they describe. */
import type * as z from '../zod.ts';
import { JOB_OPERATIONS } from './openapi-jobs.ts';
import * as s from './schemas.ts';

export type Operation = {
  method: 'get' | 'post' | 'put' | 'delete';
  /** OpenAPI path template (`{id}`). */
  path: string;
  operationId: string;
  summary: string;
  description?: string;
  tag: 'workflows' | 'runs' | 'audit' | 'approvals' | 'events' | 'local' | 'meta' | 'jobs' | 'grants';
  pathParams?: string[];
  query?: z.ZodMiniObject;
  headers?: { name: string; schema: z.ZodMiniType; description: string }[];
  body?: { schema: string; mediaTypes: string[]; required: boolean };
  responses: Record<string, { description: string; schema?: string }>;
  errors: Record<string, string>;
  authenticated?: false;
  localOnly?: true;
};

const DEFINITION_BODY = {
  schema: 'WorkflowDefinition',
  mediaTypes: ['application/json', 'application/yaml', 'text/yaml'],
  required: true,
};
const BODY_ERRORS = {
  '400': 'Invalid body: invalid_json, invalid_yaml or validation_failed, naming each field.',
  '413': 'Body larger than 1 MiB.',
  '415': 'Unsupported Content-Type.',
};
const NOT_FOUND = { '404': 'Not found (a foreign id gets the same answer).' };
const IDEMPOTENCY_KEY = {
  name: 'Idempotency-Key',
  schema: s.IdempotencyKeySchema,
  description:
    'Repeating a start with the same key and body returns the same run (200); another body is a 409.',
};
const IF_MATCH = {
  name: 'If-Match',
  schema: s.IfMatchSchema,
  description: 'The latest version the change is based on; another latest version is a 412.',
};

export const OPERATIONS: Operation[] = [
  {
    method: 'get',
    path: '/v1/openapi.json',
    operationId: 'getOpenApi',
    tag: 'meta',
    summary: 'This document.',
    // api-routes.ts: public locally; on AWS `/v1/{proxy+}` carries the authorizer (infra/constructs/runtime-api.ts).
    description:
      'Served without authentication by the local stack; on AWS the API Gateway authorizer covers it like every /v1 route.',
    responses: { '200': { description: 'The OpenAPI 3.1 document.' } },
    errors: {},
    authenticated: false,
  },
  {
    method: 'post',
    path: '/v1/workflows',
    operationId: 'createWorkflow',
    tag: 'workflows',
    summary: 'Create a workflow (version 1) from a YAML or JSON definition.',
    body: DEFINITION_BODY,
    responses: { '201': { description: 'Created.', schema: 'WorkflowWithVersion' } },
    errors: {
      ...BODY_ERRORS,
      '409': 'already_exists: the owner has a workflow with this name.',
      '502': 'trigger_sync_failed: saved, but the trigger was not updated.',
    },
  },
  {
    method: 'get',
    path: '/v1/workflows',
    operationId: 'listWorkflows',
    tag: 'workflows',
    summary: 'List the workflows (not deleted), one page at a time.',
    description:
      "With `include=summary` each item also has `summary`: its latest version's kind and trigger, its newest run, and today's spend (as `GET /v1/workflows/{id}/spend`).",
    query: s.ListWorkflowHeadsQuerySchema,
    responses: { '200': { description: 'A page.', schema: 'WorkflowPage' } },
    errors: { '400': 'Invalid query.' },
  },
  {
    method: 'get',
    path: '/v1/workflows/{id}',
    operationId: 'getWorkflow',
    tag: 'workflows',
    pathParams: ['id'],
    summary: 'The head and the latest version.',
    responses: { '200': { description: 'Found.', schema: 'WorkflowWithVersion' } },
    errors: NOT_FOUND,
  },
  {
    method: 'delete',
    path: '/v1/workflows/{id}',
    operationId: 'deleteWorkflow',
    tag: 'workflows',
    pathParams: ['id'],
    summary: 'Delete: triggers removed, the name released, runs in flight stopped at their next turn.',
    responses: { '200': { description: 'Deleted.', schema: 'WorkflowResponse' } },
    // Fenced on the head as read, then the trigger synced, as enable and disable are (routes/workflows.ts).
    errors: { ...NOT_FOUND, '409': 'concurrent_update.', '502': 'trigger_sync_failed.' },
  },
  {
    method: 'get',
    path: '/v1/workflows/{id}/spend',
    operationId: 'getWorkflowSpend',
    tag: 'workflows',
    pathParams: ['id'],
    summary: "Today's (UTC) spend of all the workflow's runs, and the per-day ceiling it counts against.",
    responses: { '200': { description: 'Found.', schema: 'DaySpendResponse' } },
    errors: NOT_FOUND,
  },
  {
    method: 'get',
    path: '/v1/workflows/{id}/versions/{version}',
    operationId: 'getWorkflowVersion',
    tag: 'workflows',
    pathParams: ['id', 'version'],
    summary: 'One version: published (immutable) or the open draft (`status`).',
    responses: { '200': { description: 'Found.', schema: 'VersionResponse' } },
    errors: NOT_FOUND,
  },
  {
    method: 'post',
    path: '/v1/workflows/{id}/versions',
    operationId: 'addWorkflowVersion',
    tag: 'workflows',
    pathParams: ['id'],
    summary:
      'Add a version; new runs use it, runs already started keep theirs. With draft=true, save a draft.',
    description:
      'A draft is not run and not used by triggers; replace it with PUT and publish it with POST …/publish. At most one draft is open at a time.',
    query: s.SaveVersionQuerySchema,
    headers: [IF_MATCH],
    body: DEFINITION_BODY,
    responses: { '201': { description: 'Created.', schema: 'WorkflowWithVersion' } },
    errors: {
      ...BODY_ERRORS,
      ...NOT_FOUND,
      '409': 'concurrent_update: another version was added meanwhile; draft_open: a draft is open.',
      '412': 'version_mismatch (If-Match).',
      '502': 'trigger_sync_failed.',
    },
  },
  {
    method: 'put',
    path: '/v1/workflows/{id}/versions/{version}',
    operationId: 'replaceWorkflowDraft',
    tag: 'workflows',
    pathParams: ['id', 'version'],
    summary: 'Replace the open draft in place (same version number); a published version is immutable.',
    body: DEFINITION_BODY,
    responses: { '200': { description: 'Replaced.', schema: 'WorkflowWithVersion' } },
    errors: {
      ...BODY_ERRORS,
      ...NOT_FOUND,
      '409': 'version_published: the version is published; concurrent_update: the draft changed meanwhile.',
    },
  },
  {
    method: 'post',
    path: '/v1/workflows/{id}/versions/{version}/publish',
    operationId: 'publishWorkflowVersion',
    tag: 'workflows',
    pathParams: ['id', 'version'],
    summary: 'Publish the open draft: immutable from now on, new runs and triggers use it.',
    responses: { '200': { description: 'Published.', schema: 'WorkflowWithVersion' } },
    errors: {
      '400': 'The draft no longer passes the save-time checks of this deployment (approvers, alert topics).',
      ...NOT_FOUND,
      '409': 'version_published: already published; concurrent_update: it changed meanwhile.',
      '502': 'trigger_sync_failed.',
    },
  },
  ...(['enable', 'disable'] as const).map(
    (action): Operation => ({
      method: 'post',
      path: `/v1/workflows/{id}/${action}`,
      operationId: `${action}Workflow`,
      tag: 'workflows',
      pathParams: ['id'],
      summary:
        action === 'enable'
          ? 'Enable (triggers on, runs may start).'
          : 'Disable (triggers off; runs in flight stop at their next turn).',
      responses: { '200': { description: 'The head.', schema: 'WorkflowResponse' } },
      errors: { ...NOT_FOUND, '409': 'concurrent_update.', '502': 'trigger_sync_failed.' },
    }),
  ),
  {
    method: 'post',
    path: '/v1/workflows/{id}/runs',
    operationId: 'startRun',
    tag: 'runs',
    pathParams: ['id'],
    summary: 'Start a run on demand.',
    headers: [IDEMPOTENCY_KEY],
    body: { schema: 'StartRunRequest', mediaTypes: ['application/json'], required: false },
    responses: {
      '201': { description: 'Started.', schema: 'RunResponse' },
      '200': {
        description: 'The run an identical earlier start (same Idempotency-Key) created.',
        schema: 'RunResponse',
      },
    },
    // The start's own refusals (shared/api/errors.ts): a kind or mode that cannot run, an execution not started.
    errors: {
      ...BODY_ERRORS,
      ...NOT_FOUND,
      '409':
        'idempotency_conflict, workflow_disabled, or workflow_not_runnable (an external workflow in mode off, or a kind this deployment cannot run).',
      '502':
        'run_not_started: the run was created, its execution could not be started, and it was ended failed (its id in the message); start again for a new run.',
      '503':
        '`run_start_pending`: the run was created and stays pending (its id in the message); with an Idempotency-Key, repeat the request after `Retry-After` to start it, without one GET the run before starting again. Or `throttled` or `unavailable`: send the same request again after `Retry-After`.',
    },
  },
  {
    method: 'get',
    path: '/v1/runs',
    operationId: 'listRuns',
    tag: 'runs',
    query: s.ListRunsQuerySchema,
    summary: 'List runs, newest first.',
    responses: { '200': { description: 'A page.', schema: 'RunPage' } },
    errors: { '400': 'Invalid query.' },
  },
  {
    method: 'get',
    path: '/v1/runs/{id}',
    operationId: 'getRun',
    tag: 'runs',
    pathParams: ['id'],
    summary: 'One run.',
    responses: { '200': { description: 'Found.', schema: 'RunResponse' } },
    errors: NOT_FOUND,
  },
  {
    method: 'get',
    path: '/v1/runs/{id}/transcript',
    operationId: 'getRunTranscript',
    tag: 'runs',
    pathParams: ['id'],
    query: s.TranscriptQuerySchema,
    summary: 'The messages of a run, in order, a page at a time.',
    description:
      'Each page holds whole messages up to 1,000,000 bytes as sent (a Lambda response is at most 6 MB) and ' +
      '`limit` messages; follow `nextToken`. A message larger than a page comes as `messagePart`, one part a ' +
      'page. A transcript that fits one page is answered as before, without `nextToken`. docs/api.md.',
    responses: { '200': { description: 'One page, in order.', schema: 'TranscriptResponse' } },
    errors: { ...NOT_FOUND, '400': 'nextToken or limit invalid.' },
  },
  {
    method: 'get',
    path: '/v1/runs/{id}/audit',
    operationId: 'getRunAudit',
    tag: 'runs',
    pathParams: ['id'],
    query: s.AuditQuerySchema,
    summary: 'The audit chain of a run and its verification, a page at a time.',
    description:
      'Each page holds whole entries up to 1,000,000 bytes as sent (a Lambda response is at most 6 MB) and is ' +
      "verified from `from`: the genesis hash on the first page, the previous page's last hash after (the token " +
      'carries it, and is valid only for this run). The last page must also end at the head recorded on the run, ' +
      'and carries the anchor. Follow `nextToken`; a chain that fits one page is answered in one. docs/api.md.',
    responses: { '200': { description: 'One page, in order.', schema: 'AuditResponse' } },
    errors: { ...NOT_FOUND, '400': "nextToken invalid (another run's token included)." },
  },
  {
    method: 'get',
    path: '/v1/runs/{id}/receipts',
    operationId: 'listRunReceipts',
    tag: 'runs',
    pathParams: ['id'],
    query: s.ListReceiptsQuerySchema,
    summary: 'Execution receipts: each side effect of the run from its ledger, and what a duplicate does.',
    description:
      'One receipt per tool call or service step: action, args hash, idempotency key, status (pending, completed, ' +
      'failed, outcome_unknown, refused), times, SHA-256 of the stored outcome, and onDuplicate. docs/api.md.',
    responses: { '200': { description: 'One page, in ledger order.', schema: 'ReceiptPage' } },
    errors: { ...NOT_FOUND, '400': 'nextToken or limit invalid.' },
  },
  {
    method: 'post',
    path: '/v1/runs/{id}/cancel',
    operationId: 'cancelRun',
    tag: 'runs',
    pathParams: ['id'],
    summary: 'Cancel a run (a finished run is returned as it is).',
    description:
      "A graph run's running child runs are cancelled too, its waiting human tasks closed and its unfinished " +
      'steps recorded cancelled (docs/graph-workflows.md, "Running a graph").',
    responses: { '200': { description: 'The run.', schema: 'RunResponse' } },
    errors: { ...NOT_FOUND, '409': 'concurrent_update.' },
  },
  {
    method: 'get',
    path: '/v1/runs/{id}/steps',
    operationId: 'listRunSteps',
    tag: 'runs',
    pathParams: ['id'],
    query: s.StepsQuerySchema,
    summary:
      "A graph run's steps: status, attempt, input, output, error and timings (steps not started are absent).",
    description:
      'A page at a time: whole steps up to 1,000,000 bytes as sent (a Lambda response is at most 6 MB) and ' +
      '`limit` steps; follow `nextToken`. A run whose steps fit one page is answered as before, without ' +
      '`nextToken`. docs/api.md.',
    responses: { '200': { description: 'One page of steps, in step-id order.', schema: 'RunStepsResponse' } },
    errors: { ...NOT_FOUND, '400': 'nextToken or limit invalid.' },
  },
  {
    method: 'post',
    path: '/v1/runs/{id}/pause',
    operationId: 'pauseRun',
    tag: 'runs',
    pathParams: ['id'],
    summary: 'Pause a graph run: no new step starts; running steps finish.',
    responses: { '200': { description: 'The run (paused: true).', schema: 'RunResponse' } },
    errors: { ...NOT_FOUND, '409': 'invalid_state (not a graph run, or ended) or concurrent_update.' },
  },
  {
    method: 'post',
    path: '/v1/runs/{id}/resume',
    operationId: 'resumeRun',
    tag: 'runs',
    pathParams: ['id'],
    summary: 'Resume a paused graph run.',
    responses: { '200': { description: 'The run.', schema: 'RunResponse' } },
    errors: { ...NOT_FOUND, '409': 'invalid_state (not paused) or concurrent_update.' },
  },
  {
    method: 'post',
    path: '/v1/runs/{id}/steps/{stepId}/retry',
    operationId: 'retryRunStep',
    tag: 'runs',
    pathParams: ['id', 'stepId'],
    summary: 'Run a failed step of a graph run again (its next attempt); only that step re-runs.',
    responses: { '200': { description: 'The run, reopened (running).', schema: 'RunResponse' } },
    errors: { ...NOT_FOUND, '409': 'invalid_state (the step has not failed) or concurrent_update.' },
  },
  {
    method: 'get',
    path: '/v1/audit',
    operationId: 'getOwnerAudit',
    tag: 'audit',
    query: s.AuditQuerySchema,
    summary:
      "The caller's workflow-change chain, anchor chain and signed heads, each verified, a page at a time.",
    description:
      'Changes carry their authenticated author. Signed heads are checked with the deployment public key ' +
      '(KMS on AWS, the local key file locally); a rewritten table fails with head_mismatch. A page holds up to ' +
      '1,000,000 bytes of entries as sent (a Lambda response is at most 6 MB): the changes, then the anchors, ' +
      'then the signed heads; each chain on a page is verified from its `from` checkpoint, each signed head ' +
      'against the entries at its signed seqs; the last page gives the newest signed head and `unsigned`. ' +
      'Follow `nextToken` (valid only for this owner). docs/api.md, docs/security.md.',
    responses: {
      '200': { description: 'One page of the chains and their verification.', schema: 'OwnerAuditResponse' },
    },
    errors: { '400': "nextToken invalid (another owner's token included)." },
  },
  {
    method: 'get',
    path: '/v1/me',
    operationId: 'getMe',
    tag: 'meta',
    summary: 'Who you are to the runtime: owner, principal, and where your credential secrets must live.',
    responses: { '200': { description: 'The caller.', schema: 'MeResponse' } },
    errors: {},
  },
  {
    method: 'get',
    path: '/v1/approvals',
    operationId: 'listApprovals',
    tag: 'approvals',
    query: s.ListApprovalsQuerySchema,
    summary: "The owner's approvals, newest first (without task tokens).",
    responses: { '200': { description: 'A page.', schema: 'ApprovalPage' } },
    errors: { '400': 'Invalid query.' },
  },
  {
    method: 'get',
    path: '/v1/human-tasks',
    operationId: 'listHumanTasks',
    tag: 'approvals',
    query: s.ListHumanTasksQuerySchema,
    summary: "The owner's human tasks (graph human_task steps), newest first (without task tokens or links).",
    description:
      'A page holds at most `limit` tasks and, as they are sent, at most 1,000,000 bytes of them (a task shows ' +
      'up to 20 context values of 4,000 characters; a Lambda response is at most 6 MB), always one: a page ' +
      'can hold fewer than `limit` with `nextToken` set. Follow `nextToken`. docs/api.md.',
    responses: { '200': { description: 'A page.', schema: 'HumanTaskPage' } },
    errors: { '400': 'Invalid query.' },
  },
  {
    method: 'post',
    path: '/v1/events',
    operationId: 'putEvents',
    tag: 'events',
    summary: 'Put events on the runtime bus, stamped with your owner.',
    description:
      "Each entry's Detail gains `wf-owner`: the caller's owner, from authentication. A Detail that sets " +
      '`wf-owner` to anyone else is refused (400 naming the field) and nothing is put. The entries together ' +
      '(stamp included) must not pass 256 KiB, as EventBridge requires of one request (400 naming Entries). ' +
      'Events start only the ' +
      "caller's own event-triggered workflows. On AWS the answer is EventBridge PutEvents'; locally it also " +
      'lists the runs started.',
    body: { schema: 'PutEventsRequest', mediaTypes: ['application/json'], required: true },
    responses: {
      '200': {
        description: 'Accepted, as PutEvents answers (entries may fail one by one).',
        schema: 'PutEventsResponse',
      },
    },
    errors: { ...BODY_ERRORS, '501': 'This deployment has no event bus.' },
  },
  {
    method: 'post',
    path: '/local/events',
    operationId: 'putLocalEvents',
    tag: 'local',
    localOnly: true,
    summary: 'Local stack: put events on the local bus (PutEvents body or one event).',
    description:
      "Each event is stamped with the caller's owner and matched against the caller's enabled event-triggered " +
      'workflows; one run per (workflow, event id).',
    body: { schema: 'LocalEventsRequest', mediaTypes: ['application/json'], required: true },
    responses: {
      '200': {
        description: 'Accepted, as PutEvents answers, plus the runs started.',
        schema: 'LocalEventsResponse',
      },
    },
    errors: BODY_ERRORS,
  },
  ...JOB_OPERATIONS,
];
