/**
 * A's objects of every kind, for the tenancy check: an agent run waiting for approval (and a draft of its
 * workflow), a graph run waiting on a human task, an external run, a delegated job that ran, and A's page tokens
 * of every listing. Their ids go in `foreign` (tenancy-ids.ts).
 */
import { expect } from 'vitest';
import { ownerAuditToken, runAuditToken } from '../../shared/api/audit-cursors.ts';
import { ownerSecretPrefix } from '../../shared/credentials/owner-key.ts';
import { encodeToken } from '../../shared/store/index.ts';
import { startRefund } from '../graph/support.ts';
import { baseGrant, clientKey } from '../jobs/support.ts';
import { applyWorkflowText, eventually } from './support.ts';
import { foreign, grantIds } from './tenancy-ids.ts';
import { linksOfA } from './tenancy-links.ts';
import type { IdKind } from './tenancy-probe.ts';
import { agentDefinition, CLIENTS } from './tenancy-probe-builders.ts';
import { APPROVER_OF_A, asA, KEY_A, KEY_B, ownerOf, refundOfStack, TOPIC_OF_A } from './tenancy-stack.ts';

export const EXTERNAL = `kind: external
name: tenancy-a-external
description: a nightly build, shadow mode (nothing is dispatched)
engine: http-runtime
mode: shadow
payload: { branch: main }
trigger: { type: on_demand }
budget: { maxUsdPerRun: 1 }
`;
const EVENT = `name: tenancy-a-event
description: started by an order event (of A's only)
model: { id: claude-sonnet-5-5, maxTokens: 512 }
prompt:
  system: Say done.
allowedActions: [current_time]
trigger:
  type: event
  pattern: { source: [com.example.orders] }
budget: { maxUsdPerRun: 1, maxTurns: 2, maxToolCallsPerTurn: 1 }
`;
export const GATED = `name: tenancy-a-agent
description: appends one line, with a human's approval
model: { id: claude-sonnet-5-5, maxTokens: 1024 }
prompt:
  system: Append the line you are asked to append with notes_append.
allowedActions: [notes_append]
gates:
  notes_append: needs_approval
approvals:
  approvers: [editor@example.com]
  timeoutSeconds: 3600
trigger: { type: on_demand }
budget: { maxUsdPerRun: 1, maxTurns: 4, maxToolCallsPerTurn: 4 }
`;

/** Makes A's objects (and the grants of every client, B's too) and fills in `foreign`. */
export async function makeObjectsOfA(): Promise<void> {
  const a = ownerOf(KEY_A);
  foreign.agentWorkflow = await applyWorkflowText(a, 'tenancy-a-agent', GATED);
  foreign.graphWorkflow = await applyWorkflowText(a, 'refund-large', refundOfStack());
  foreign.externalWorkflow = await applyWorkflowText(a, 'tenancy-a-external', EXTERNAL);
  // A's alert topic and approver are A's to name (B's probes name them).
  await asA('POST', '/v1/workflows', {
    ...agentDefinition('tenancy-a-alerts'),
    destination: { type: 'alert', topicArn: TOPIC_OF_A },
    gates: { current_time: { mode: 'needs_approval', approvers: [APPROVER_OF_A] } },
  });
  // Matched by B's events too, were they not fenced: a run of it would change A's items.
  await applyWorkflowText(a, 'tenancy-a-event', EVENT);
  await asA(
    'POST',
    `/v1/workflows/${foreign.agentWorkflow}/versions?draft=true`,
    agentDefinition('tenancy-a-agent'),
  );
  foreign.graphRun = await startRefund(a, foreign.graphWorkflow, 'My order never arrived. Customer c_88.');
  foreign.agentRun = (
    await asA('POST', `/v1/workflows/${foreign.agentWorkflow}/runs`, { input: { note: 'tenancy' } })
  ).run.runId;
  // Started and submitted with an Idempotency-Key each: B's probes send the same keys (and the same bodies).
  foreign.runKey = 'tenancy-a-run-key';
  foreign.jobKey = 'tenancy-a-job-key';
  foreign.externalRun = (
    await asA('POST', `/v1/workflows/${foreign.externalWorkflow}/runs`, { input: {} }, KEY_A, {
      'Idempotency-Key': foreign.runKey,
    })
  ).run.runId;
  for (const [key, clientId] of [
    [KEY_A, CLIENTS.a],
    [KEY_A, CLIENTS.sibling],
    [KEY_B, CLIENTS.b],
  ] as const)
    grantIds[clientId] = (
      await asA('POST', '/v1/grants', { clientId, grant: baseGrant() }, key)
    ).grant.grantId;
  foreign.client = CLIENTS.a;
  foreign.clientKey = clientKey(CLIENTS.sibling);
  foreign.job = (
    await asA('POST', '/v1/jobs', { prompt: 'What time is it?' }, clientKey(CLIENTS.a), {
      'Idempotency-Key': foreign.jobKey,
    })
  ).job.jobId;
  await linksOfA(a);
  foreign.childRun = await eventually(
    'the triage child run',
    async () =>
      (await a.stack.store.loadGraphRun(foreign.graphRun))?.steps.find((step) => step.stepId === 'triage')
        ?.childRunId,
  );
  foreign.jobRun = await eventually('the job to end', async () => {
    const { job } = await asA('GET', `/v1/jobs/${foreign.job}`, undefined, clientKey(CLIENTS.a));
    return job.status === 'done' ? job.runId : undefined;
  });
  await eventually('the external run to end', async () => {
    const { run } = await asA('GET', `/v1/runs/${foreign.externalRun}`);
    return ['done', 'failed'].includes(run.status) ? true : undefined;
  });
  foreign.runsToken = (await asA('GET', '/v1/runs?limit=1')).nextToken;
  foreign.workflowsToken = (await asA('GET', '/v1/workflows?limit=1')).nextToken;
  Object.assign(foreign, await pageTokensOfA());
  foreign.secret = `${ownerSecretPrefix('wf/', 'team-a')}tenancy`;
  foreign.grantedClient = CLIENTS.sibling;
  foreign.owner = 'team-a';
  foreign.alertTopic = TOPIC_OF_A;
  foreign.approver = APPROVER_OF_A;
  const { workflow: externalHead } = await asA('GET', `/v1/workflows/${foreign.externalWorkflow}`);
  foreign.versionTag = `"${externalHead.latestVersion}"`;
  const unissued = Object.entries(foreign).filter(([, id]) => typeof id !== 'string' || id === '');
  expect(unissued, "A's ids and page tokens the setup did not get").toEqual([]);
}

/**
 * A's page tokens of every listing that takes one: as the API issues them (a first page of one), or, for the
 * audit answers (paged by size, and A's are short) and receipts (A has none), made as the route makes its own.
 */
async function pageTokensOfA(): Promise<Partial<Record<IdKind, string | undefined>>> {
  const first = async (path: string, key = KEY_A) =>
    (await asA('GET', `${path}?limit=1`, undefined, key)).nextToken;
  const start = { seq: 1, prevHash: '0'.repeat(64) };
  return {
    approvalsToken: await first('/v1/approvals'),
    humanTasksToken: await first('/v1/human-tasks'),
    jobsToken: await first('/v1/jobs', clientKey(CLIENTS.a)),
    grantJobsToken: await first(`/v1/grants/${CLIENTS.a}/jobs`),
    transcriptToken: await first(`/v1/runs/${foreign.agentRun}/transcript`),
    // A's runs have no receipt yet (the gated call waits for its approval): a key of the run's ledger rows.
    receiptsToken: encodeToken({ pk: `RUN#${foreign.agentRun}`, sk: 'TOOL#toolu_tenancy' }),
    stepsToken: await first(`/v1/runs/${foreign.graphRun}/steps`),
    runAuditToken: runAuditToken(foreign.agentRun, { item: 1, ...start }),
    auditToken: ownerAuditToken('team-a', {
      section: 'changes',
      changes: start,
      anchors: start,
      signed: { index: 0 },
    }),
  };
}
