/**
 * The tenancy check's rows for the local stack's pages (a run's recording, the inbox and its session), the
 * approval and human-task pages, and the console: one per route, keyed `METHOD path` as Hono lists it, each
 * naming its probes (tenancy-probe.ts). ROUTES (tenancy-fixtures.ts) gathers them with the API's
 * (tenancy-api-routes.ts).
 */
import { type Fixture, lit, own, type Probe, ref } from './tenancy-probe.ts';
import { CLIENTS, eachRun, FORGED, MISSING_TASK, runKinds, workflowKinds } from './tenancy-probe-builders.ts';

export const PAGE_ROUTES: Record<string, Fixture> = {
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
