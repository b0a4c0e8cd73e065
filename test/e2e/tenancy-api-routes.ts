/**
 * The tenancy check's rows for the API's routes (workflows, runs, approvals, human tasks, audit, identity,
 * events, grants, jobs, the MCP transport, the OpenAPI document): one per route, keyed `METHOD path` as Hono
 * lists it, each naming its probes (tenancy-probe.ts). ROUTES (tenancy-fixtures.ts) gathers them with the
 * pages' and the console's (tenancy-page-routes.ts).
 */
import { baseGrant } from '../jobs/support.ts';
import { type Fixture, lit, own, type Probe, ref } from './tenancy-probe.ts';
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
  grantApprover,
  grantChange,
  grantSecret,
  graphApprover,
  runTokenProbe,
  tokenProbe,
  workflowKinds,
} from './tenancy-probe-builders.ts';

export const API_ROUTES: Record<string, Fixture> = {
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
};
