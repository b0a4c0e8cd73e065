/**
 * The fixtures of the tenancy check (tenancy-routes.test.ts): one row per route of the local stack's HTTP
 * server, keyed `METHOD path` as Hono lists it, and one row per tool of the jobs MCP server, each naming its
 * probes (tenancy-probe.ts says what a probe is and how it is sent; tenancy-probe-builders.ts holds the builders
 * the rows share). A route or tool without a row fails the check, so a new one is covered the day it is added.
 * Every query, header and body field that is an id (tenancy-fields.ts) is named by a probe of its route's row,
 * or exempt in FIELD_EXEMPTIONS with its reason.
 */
import { baseGrant } from '../jobs/support.ts';
import { type Fixture, lit, own, type Probe, ref, type ToolProbe } from './tenancy-probe.ts';
import {
  agentDefinition,
  asClients,
  CLIENTS,
  definitionApprover,
  definitionSecret,
  definitionTopic,
  eachRun,
  eachWorkflow,
  event,
  FORGED,
  grantApprover,
  grantChange,
  grantSecret,
  graphApprover,
  MISSING_TASK,
  runKinds,
  runTokenProbe,
  tokenProbe,
  workflowKinds,
} from './tenancy-probe-builders.ts';

export const ROUTES: Record<string, Fixture> = {
  // Workflows.
  'GET /v1/workflows': {
    probes: [
      { as: 'ownerB' },
      { as: 'ownerB', query: { include: lit('summary') } },
      { as: 'ownerB', query: { limit: lit('1'), nextToken: 'workflowsToken' }, status: 400 },
    ],
  },
  'POST /v1/workflows': {
    probes: [
      { as: 'ownerB', json: agentDefinition('tenancy-a-agent'), status: 201 },
      definitionSecret('tenancy-b-refs'),
      definitionTopic('tenancy-b-refs'),
      definitionApprover('tenancy-b-refs'),
      graphApprover('tenancy-b-refs'),
    ],
  },
  'GET /v1/workflows/:id': { probes: eachWorkflow() },
  'DELETE /v1/workflows/:id': { probes: eachWorkflow() },
  'POST /v1/workflows/:id/enable': { probes: eachWorkflow() },
  'POST /v1/workflows/:id/disable': { probes: eachWorkflow() },
  'GET /v1/workflows/:id/spend': { probes: eachWorkflow() },
  'POST /v1/workflows/:id/runs': {
    probes: [
      ...eachWorkflow({ json: { input: { message: 'x' } } }),
      ...eachWorkflow({ json: { input: {} }, headers: { 'Idempotency-Key': 'runKey' } }),
      // B starts a run of its own with the key A started a run with: a new run of B's, as with a fresh key.
      {
        as: 'ownerB',
        params: { id: own('externalWorkflow') },
        json: { input: {} },
        headers: { 'Idempotency-Key': 'runKey' },
        status: 201,
        settles: true,
      },
    ],
  },
  'POST /v1/workflows/:id/versions': {
    probes: [
      { as: 'ownerB', params: { id: 'agentWorkflow' }, json: agentDefinition('tenancy-a-agent') },
      // The If-Match A's new version would pass, and one it would not: a version number, not a secret of A's
      // (B's own workflows have the same numbers), so it is probed on A's workflow, against a number nobody's is
      // at on a missing one. Either way B learns nothing of A's head (no 412 before the 404).
      ...[lit('"7"'), 'versionTag' as const].map(
        (tag): Probe => ({
          as: 'ownerB',
          params: { id: 'externalWorkflow' },
          headers: { 'If-Match': tag },
          json: agentDefinition('tenancy-a-external'),
        }),
      ),
      {
        as: 'ownerB',
        params: { id: 'agentWorkflow' },
        query: { draft: lit('true') },
        json: agentDefinition('tenancy-a-agent'),
      },
      definitionSecret('tenancy-b-own', { params: { id: own('workflow') } }),
      definitionTopic('tenancy-b-own', { params: { id: own('workflow') } }),
      definitionApprover('tenancy-b-own', { params: { id: own('workflow') } }),
      graphApprover('tenancy-b-graph', { params: { id: own('graph') } }),
    ],
  },
  'GET /v1/workflows/:id/versions/:version': {
    probes: [...eachWorkflow({}, { version: lit('1') }), ...eachWorkflow({}, { version: lit('2') })],
  },
  'PUT /v1/workflows/:id/versions/:version': {
    probes: [
      ...eachWorkflow({ json: agentDefinition('tenancy-a-agent') }, { version: lit('2') }),
      definitionSecret('tenancy-b-own', { params: { id: own('workflow'), version: lit('2') } }),
      definitionTopic('tenancy-b-own', { params: { id: own('workflow'), version: lit('2') } }),
      definitionApprover('tenancy-b-own', { params: { id: own('workflow'), version: lit('2') } }),
      graphApprover('tenancy-b-graph', { params: { id: own('graph'), version: lit('2') } }),
    ],
  },
  'POST /v1/workflows/:id/versions/:version/publish': { probes: eachWorkflow({}, { version: lit('2') }) },
  // Runs of every kind.
  'GET /v1/runs': {
    probes: [
      { as: 'ownerB' },
      ...workflowKinds.map((id): Probe => ({ as: 'ownerB', query: { workflowId: id }, status: 200 })),
      { as: 'ownerB', query: { limit: lit('1'), nextToken: 'runsToken' }, status: 400 },
    ],
  },
  'GET /v1/runs/:id': { probes: eachRun() },
  'GET /v1/runs/:id/transcript': { probes: [...eachRun(), runTokenProbe('transcriptToken')] },
  'GET /v1/runs/:id/audit': { probes: [...eachRun(), runTokenProbe('runAuditToken', {})] },
  'GET /v1/runs/:id/receipts': { probes: [...eachRun(), runTokenProbe('receiptsToken')] },
  'GET /v1/runs/:id/steps': { probes: [...eachRun(), runTokenProbe('stepsToken')] },
  'POST /v1/runs/:id/cancel': { probes: eachRun() },
  'POST /v1/runs/:id/pause': { probes: eachRun() },
  'POST /v1/runs/:id/resume': { probes: eachRun() },
  'POST /v1/runs/:id/steps/:stepId/retry': {
    probes: [...eachRun({}, { stepId: lit('manager_review') }), ...eachRun({}, { stepId: lit('triage') })],
  },
  // Approvals, human tasks, audit, identity, events.
  'GET /v1/approvals': {
    probes: [
      { as: 'ownerB' },
      { as: 'ownerB', query: { status: lit('pending') } },
      { as: 'ownerB', ...tokenProbe('approvalsToken') },
    ],
  },
  'GET /v1/human-tasks': {
    probes: [
      { as: 'ownerB' },
      { as: 'ownerB', query: { status: lit('open') } },
      { as: 'ownerB', ...tokenProbe('humanTasksToken') },
    ],
  },
  'GET /v1/audit': {
    probes: [
      { as: 'ownerB' },
      { as: 'ownerB', query: { nextToken: 'auditToken' }, status: 400, field: 'nextToken' },
    ],
  },
  'GET /v1/me': { probes: [{ as: 'ownerB' }, { as: 'clientB' }] },
  'POST /v1/events': { probes: [{ as: 'ownerB', json: event }] },
  'POST /local/events': { probes: [{ as: 'ownerB', json: event }] },
  // Grants (the owner's) and jobs (the client's).
  'GET /v1/grants': { probes: [{ as: 'ownerB' }] },
  'POST /v1/grants': {
    probes: [
      { as: 'ownerB', json: { clientId: 'b-new', grant: baseGrant() } },
      // B grants a client A granted too: as a client nobody granted, and A's grant stays A's.
      { as: 'ownerB', json: { clientId: ref('grantedClient'), grant: baseGrant() }, status: 201 },
      grantSecret({ clientId: 'b-refs' }),
      grantApprover({ clientId: 'b-refs' }),
    ],
  },
  'GET /v1/grants/:clientId': { probes: [{ as: 'ownerB', params: { clientId: 'client' } }] },
  'GET /v1/grants/:clientId/history': { probes: [{ as: 'ownerB', params: { clientId: 'client' } }] },
  'GET /v1/grants/:clientId/jobs': {
    probes: [
      { as: 'ownerB', params: { clientId: 'client' } },
      { as: 'ownerB', ...tokenProbe('grantJobsToken', { params: { clientId: lit(CLIENTS.b) } }) },
    ],
  },
  'POST /v1/grants/:clientId/narrow': {
    probes: [
      { as: 'ownerB', params: { clientId: 'client' }, json: grantChange },
      grantSecret({}, { params: { clientId: lit(CLIENTS.b) } }),
      grantApprover({}, { params: { clientId: lit(CLIENTS.b) } }),
    ],
  },
  'POST /v1/grants/:clientId/widen': {
    probes: [
      { as: 'ownerB', params: { clientId: 'client' }, json: grantChange },
      grantSecret({}, { params: { clientId: lit(CLIENTS.b) } }),
      grantApprover({}, { params: { clientId: lit(CLIENTS.b) } }),
    ],
  },
  'POST /v1/grants/:clientId/revoke': { probes: [{ as: 'ownerB', params: { clientId: 'client' } }] },
  'GET /v1/jobs': { probes: [...asClients({}), ...asClients(tokenProbe('jobsToken'))] },
  'POST /v1/jobs': {
    probes: [
      ...asClients({ json: { prompt: 'What time is it?', dryRun: true } }),
      // B's client submits A's client's job with the key it was submitted with: a new job of B's, as with a fresh
      // key. (A's other client would submit a job of A's: A's items change, so it is not probed this way.)
      {
        as: 'clientB',
        json: { prompt: 'What time is it?' },
        headers: { 'Idempotency-Key': 'jobKey' },
        status: 202,
        settles: true,
        progress: ['job.status', 'job.attempts.made', 'job.turns', 'job.usage', 'job.costUsd'].concat([
          'job.endedAt',
          'job.stopReason',
        ]),
      },
    ],
  },
  'GET /v1/jobs/:id': { probes: asClients({ params: { id: 'job' } }) },
  'DELETE /v1/jobs/:id': { probes: asClients({ params: { id: 'job' } }) },
  'POST /v1/jobs/:id/cancel': { probes: asClients({ params: { id: 'job' } }) },
  // The MCP server: its tools are checked one by one through the MCP client (TOOLS below).
  'POST /mcp': { exempt: 'the MCP transport: every tool is probed through the MCP client (TOOLS)' },
  'GET /mcp': { exempt: 'answers 405 to everyone (stateless: no SSE stream)' },
  'DELETE /mcp': { exempt: 'answers 405 to everyone (stateless: no session)' },
  'GET /v1/openapi.json': { exempt: 'the public API document: the same for every caller, no owner data' },
  // The local stack's own pages.
  'GET /local/runs/:id/recording': { probes: eachRun() },
  // A client's key opens no inbox: it gets the sign-in form, as nobody does.
  'GET /local/inbox': { probes: [{ as: 'ownerB', clientStatus: 200 }] },
  'POST /local/session': {
    probes: [
      { as: 'anonymous', form: { key: 'B' }, status: 303 },
      // The key of a delegated client of A's: the inbox is the owner's, so it signs in nobody, as a key of a
      // client nobody granted.
      { as: 'anonymous', form: { key: ref('clientKey') }, status: 401 },
    ],
  },
  'POST /local/session/end': { probes: [{ as: 'anonymous' }] },
  // The approval and human-task pages: the signed link is the credential, checked before the id is read; with
  // a link B could forge, A's id and a missing one draw the same refusal.
  'GET /approvals/:approvalId': {
    probes: [
      { as: 'anonymous', params: { approvalId: 'approval' }, query: { t: lit(FORGED) }, status: 403 },
      // A's link on B's own approval: refused as a link no key signed is (a link opens the approval it was
      // signed for only).
      { as: 'anonymous', params: { approvalId: own('approval') }, query: { t: 'approvalLink' }, status: 403 },
      // B's own approval with its real link, whose unsigned read hints (read-hints.ts) name A's run and head:
      // the page is B's either way, and nothing of A's is shown.
      {
        as: 'anonymous',
        params: { approvalId: own('approval') },
        query: { t: own('approvalLink'), run: 'agentRun', owner: 'owner', wf: 'agentWorkflow' },
        status: 200,
      },
    ],
  },
  'POST /approvals/:approvalId': {
    probes: [
      {
        as: 'anonymous',
        params: { approvalId: 'approval' },
        form: { t: FORGED, nonce: FORGED, decision: 'approve' },
        status: 403,
      },
      // A's link on B's own approval, with B's own nonce: refused as a link no key signed, nothing decided.
      {
        as: 'anonymous',
        params: { approvalId: own('approval') },
        form: { t: ref('approvalLink'), nonce: own('approvalNonce'), decision: 'approve' },
        status: 403,
      },
      // B's own approval and link with the nonce of A's form: refused as a nonce no key signed, nothing decided.
      {
        as: 'anonymous',
        params: { approvalId: own('approval') },
        form: { t: own('approvalLink'), nonce: ref('approvalNonce'), decision: 'approve' },
        status: 403,
      },
      // A decision is made once, so B decides one of its two waiting approvals with the form action's read hint
      // naming A's run and the sealed state of A's form, the other with a missing run and a state nothing sealed.
      // A's state is sealed to A's approval, approver and nonce, so it does not open for B's and is ignored as the
      // other is; the hint is then what the decision reads the run by: B's decision is made on B's own run either
      // way.
      {
        as: 'anonymous',
        params: { approvalId: own('approval', 'approval2') },
        query: { run: 'agentRun' },
        form: {
          t: own('approvalLink', 'approvalLink2'),
          nonce: own('approvalNonce', 'approvalNonce2'),
          decision: 'deny',
          state: ref('approvalState'),
        },
        status: 200,
        settles: true,
      },
    ],
  },
  'GET /human-tasks/:taskId': {
    probes: [
      { as: 'anonymous', params: { taskId: 'humanTask' }, query: { t: lit(FORGED) }, status: 403 },
      // A's link on a task of nobody's, and on B's own task: refused as a link no key signed is (a link opens
      // the task it was signed for only).
      { as: 'anonymous', params: { taskId: lit(MISSING_TASK) }, query: { t: 'humanTaskLink' }, status: 403 },
      { as: 'anonymous', params: { taskId: own('humanTask') }, query: { t: 'humanTaskLink' }, status: 403 },
    ],
  },
  'POST /human-tasks/:taskId': {
    probes: [
      {
        as: 'anonymous',
        params: { taskId: 'humanTask' },
        form: { t: FORGED, nonce: FORGED, 'f.approve': 'true' },
        status: 403,
      },
      // A's link on B's own task, with B's own nonce: refused as a link no key signed, nothing submitted.
      {
        as: 'anonymous',
        params: { taskId: own('humanTask') },
        form: { t: ref('humanTaskLink'), nonce: own('humanTaskNonce'), 'f.approve': 'true' },
        status: 403,
      },
      // B's own task and link with the nonce of A's form: refused as a nonce no key signed, nothing submitted.
      {
        as: 'anonymous',
        params: { taskId: own('humanTask') },
        form: { t: own('humanTaskLink'), nonce: ref('humanTaskNonce'), 'f.approve': 'true' },
        status: 403,
      },
    ],
  },
  // The console (B signed in).
  'GET /console/login': { probes: [{ as: 'anonymous' }] },
  'POST /console/login': {
    probes: [
      { as: 'anonymous', form: { key: 'B' }, status: 303 },
      // The key of a delegated client of A's: the console is the owner's, so it signs in nobody, as a key of a
      // client nobody granted.
      { as: 'anonymous', form: { key: ref('clientKey') }, status: 401 },
    ],
  },
  // Signed out without a session: B's own would end the session the other console probes use.
  'POST /console/logout': { probes: [{ as: 'anonymous', status: 303 }] },
  'GET /console': { probes: [{ as: 'consoleB' }] },
  'GET /console/': { probes: [{ as: 'consoleB' }] },
  'GET /console/workflows': {
    probes: [{ as: 'consoleB' }, { as: 'consoleB', query: { after: 'workflowsToken' }, status: 400 }],
  },
  'GET /console/runs': {
    probes: [
      { as: 'consoleB' },
      ...workflowKinds.map((id): Probe => ({ as: 'consoleB', query: { workflow: id }, status: 200 })),
      { as: 'consoleB', query: { after: 'runsToken' }, status: 400 },
    ],
  },
  'GET /console/runs/:id': {
    probes: [
      ...runKinds.map((id): Probe => ({ as: 'consoleB', params: { id } })),
      // A's run's transcript and audit page tokens on B's own run's page.
      { as: 'consoleB', params: { id: own('run') }, query: { transcript: 'transcriptToken' }, status: 400 },
      { as: 'consoleB', params: { id: own('run') }, query: { audit: 'runAuditToken' }, status: 400 },
    ],
  },
  'POST /console/runs/:id/cancel': {
    probes: runKinds.map((id): Probe => ({ as: 'consoleB', params: { id } })),
  },
  'GET /console/approvals': {
    probes: [{ as: 'consoleB' }, { as: 'consoleB', query: { after: 'approvalsToken' }, status: 400 }],
  },
  'GET /console/human-tasks': {
    probes: [{ as: 'consoleB' }, { as: 'consoleB', query: { after: 'humanTasksToken' }, status: 400 }],
  },
  'GET /console/jobs': {
    probes: [
      { as: 'consoleB' },
      { as: 'consoleB', query: { client: 'client' }, status: 200 },
      // B's own client, with the page token of A's client's jobs.
      { as: 'consoleB', query: { client: lit(CLIENTS.b), after: 'grantJobsToken' }, status: 400 },
    ],
  },
  'GET /console/grants': { probes: [{ as: 'consoleB' }] },
};

/**
 * Query and body fields that are ids (tenancy-fields.ts) but name nothing of another owner's to probe, by field
 * (on every route) or by `METHOD path field`: why each is exempt.
 */
export const FIELD_EXEMPTIONS: Record<string, string> = {
  'body.model.id': "a model of the deployment's catalog, the same for every owner",
  'body.nodes[].model.id': "a model of the deployment's catalog, the same for every owner",
  'body.nodes[].id': 'names a node of the definition itself',
  'body.engine':
    'an external engine the deployment enables for every owner (externalEngines): none is an owner’s',
  'body.nodes[].engine':
    'an external engine the deployment enables for every owner (externalEngines): none is an owner’s',
  'POST /local/events body.id':
    "the event's own id, chosen by its sender: it dedupes runs per workflow, and B's events reach B's workflows only (tenancy of events)",
};

/**
 * Query parameters the console and the pages read by name (tenancy-query.ts) that name nothing of an owner's,
 * so no probe sends A's value in them: why each is exempt.
 */
export const QUERY_EXEMPTIONS: Record<string, string> = {
  status:
    "the console's runs filter by status: one of the run statuses (RUN_STATUSES), the same for every owner",
  kind: "the console's runs filter by kind: agent, graph or external, the same for every owner",
};

/**
 * Form fields the pages and the console read by name (tenancy-form.ts) that name nothing of an owner's, so no
 * probe sends A's value in them: why each is exempt.
 */
export const FORM_EXEMPTIONS: Record<string, string> = {
  decision: "the approval form's choice: `approve` or `deny`, the same for every owner",
};

/** The jobs MCP server's tools, each with its probes. */
export const TOOLS: Record<string, ToolProbe[]> = {
  submit_agent_job: [{ args: { prompt: 'What time is it?', dryRun: true } }],
  get_agent_job: [{ ids: { jobId: 'job' } }],
  cancel_agent_job: [{ ids: { jobId: 'job' } }],
  // A page token of A's client's jobs: refused as a token of nobody's.
  list_agent_jobs: [{ args: {} }, { ids: { nextToken: 'jobsToken' }, code: 'validation_failed' }],
};
