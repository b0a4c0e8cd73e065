/**
 * The approval page's "withdrawn" warning, for a graph run's gated service step as for an agent run's call:
 * while the step's action is still in the live policy (the run's version's node ∩ the same node of the
 * workflow's latest version, the workflow enabled and not deleted) the page warns of nothing and an approval
 * says the run performs it; once the workflow is disabled, deleted, or replaced by a version whose node no
 * longer allows the call (node gone, another action, gate `deny`), the page warns and the approval says it
 * will not run. A replacement that keeps the node's call allowed warns of nothing. The policy is the one the
 * step itself applies when it resumes (shared/graph-run/service-policy.ts).
 */
import { randomUUID } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { createActionCatalog } from '../../shared/actions/index.ts';
import { RESULT_TITLES } from '../../shared/approvals/index.ts';
import { createApprovalApp } from '../../shared/approvals-http/app.ts';
import { requestApproval } from '../../shared/approvals-http/request-approval.ts';
import { sfnTaskTokens } from '../../shared/approvals-http/task-tokens.ts';
import { newApproval } from '../../shared/core/approval-record.ts';
import { RunHandle } from '../../shared/core/run-handle.ts';
import { inboxNotifier } from '../../shared/notify/index.ts';
import { loadWorkflowText } from '../../shared/workflow-file/index.ts';
import { FixedClock, seedRun, seedWorkflow } from '../support/store.ts';
import { useSfnWire } from './sfn-wire.ts';
import {
  approvalScenario,
  BOSS,
  headingOf,
  keyring,
  nonceOf,
  PUBLIC_BASE,
  postForm,
  recordingLogger,
  store,
} from './support.ts';

const wire = useSfnWire();

const WITHDRAWN = 'has been withdrawn from the workflow since it was requested';

/** start → refund (issue_refund, gated needs_approval) → done; `refund` replaced by `node` when given. */
const graphText = (name: string, options: { node?: string; gate?: string } = {}) => `kind: graph
name: ${name}
trigger: { type: on_demand }
budget: { maxUsdPerRun: 1 }
approvals: { approvers: [${BOSS}], timeoutSeconds: 600 }
${options.node ? '' : `gates: { issue_refund: ${options.gate ?? 'needs_approval'} }`}
connectors:
  issue_refund:
    kind: http
    description: Pay a refund.
    method: POST
    url: http://127.0.0.1:9/refunds
    idempotent: true
  log_refund:
    kind: http
    description: Log a refund.
    method: POST
    url: http://127.0.0.1:9/log
    idempotent: true
nodes:
  - { id: start, type: start }
  - ${options.node ?? '{ id: refund, type: service_task, action: issue_refund, args: { amount: 40 } }'}
  - { id: done, type: end }
edges:
  - { from: start, to: ${options.node ? /id: (\w+)/.exec(options.node)![1] : 'refund'} }
  - { from: ${options.node ? /id: (\w+)/.exec(options.node)![1] : 'refund'}, to: done }
`;

/** A graph run whose `refund` step waits on its approval, with the approver's link sent and the page app. */
async function graphStepScenario() {
  const clock = new FixedClock();
  const name = `refund-${randomUUID().slice(0, 8)}`;
  const { head, version } = await seedWorkflow(store, graphText(name), { clock });
  const created = await seedRun(store, version, { clock });
  const approval = newApproval(
    created,
    {
      toolUseId: 'step-refund-1',
      turn: 0,
      tool: 'issue_refund',
      input: { amount: 40 },
      approvers: [BOSS],
      timeoutSeconds: 600,
      reason: 'service step refund',
      step: { stepId: 'refund', attempt: 1 },
    },
    clock.nowMs(),
  );
  await new RunHandle(created, { store, clock }).commit({
    approvalCreate: [approval],
    next: (current) => ({ ...current, status: 'running', pendingApprovalIds: [approval.approvalId] }),
  });
  const inbox = inboxNotifier();
  const taskTokens = sfnTaskTokens(wire.client, { sleep: async () => {} });
  const logger = recordingLogger();
  await requestApproval(
    { store, clock, keyring, publicBaseUrl: PUBLIC_BASE, notifier: inbox, taskTokens, logger },
    { runId: created.runId, taskToken: `token-${randomUUID()}`, approvalId: approval.approvalId },
  );
  const app = createApprovalApp({
    store,
    clock,
    keyring,
    taskTokens,
    publicBaseUrl: PUBLIC_BASE,
    actions: createActionCatalog({ notes: store }),
    logger,
  });
  const url = new URL(inbox.notices()[0]!.url);
  const link = { path: `${url.pathname}${url.search}`, token: url.searchParams.get('t')! };
  /** Publishes `text` as the next version (the head's latest). */
  const publish = async (text: string) => {
    const current = (await store.getWorkflowHead(head.owner, head.workflowId))!;
    const next = { ...current, latestVersion: current.latestVersion + 1, updatedAt: current.updatedAt };
    await store.addWorkflowVersion(current, next, {
      ...version,
      version: next.latestVersion,
      definition: loadWorkflowText(text) as typeof version.definition,
    });
  };
  const setHead = async (change: { enabled: boolean; deleted?: boolean }) => {
    const current = (await store.getWorkflowHead(head.owner, head.workflowId))!;
    await store.updateWorkflowHead(current, { ...current, ...change }, change.deleted === true);
  };
  return { app, link, approvalId: approval.approvalId, name, publish, setHead };
}

type Scenario = {
  app: ReturnType<typeof createApprovalApp>;
  link: { path: string; token: string };
  approvalId: string;
};

/** The page, then an approval posted with the page's own nonce: what the approver reads before and after. */
async function pageThenApprove(s: Scenario) {
  const page = await (await s.app.request(s.link.path)).text();
  const result = await (
    await postForm(s.app, s.approvalId, { t: s.link.token, nonce: nonceOf(page), decision: 'approve' })
  ).text();
  return { page, result: headingOf(result) };
}

describe("Approval pages of a graph run's gated service step", () => {
  it('warn of nothing while the step is still granted, and say the run performs it', async () => {
    const s = await graphStepScenario();
    const { page, result } = await pageThenApprove(s);
    expect(page).not.toContain(WITHDRAWN);
    expect(result).toBe(RESULT_TITLES.approved);
  });

  it('warn of nothing when a newer version keeps the same node and its call allowed', async () => {
    const s = await graphStepScenario();
    await s.publish(graphText(s.name).replace('Pay a refund.', 'Pay a refund (v2).'));
    const { page, result } = await pageThenApprove(s);
    expect(page).not.toContain(WITHDRAWN);
    expect(result).toBe(RESULT_TITLES.approved);
  });

  it.each<[string, (s: Awaited<ReturnType<typeof graphStepScenario>>) => Promise<void>]>([
    ['the workflow disabled', (s) => s.setHead({ enabled: false })],
    ['the workflow deleted', (s) => s.setHead({ enabled: false, deleted: true })],
    [
      'a newer version without the node',
      (s) => s.publish(graphText(s.name, { node: '{ id: audit, type: service_task, action: log_refund }' })),
    ],
    [
      'a newer version whose node calls another action',
      (s) => s.publish(graphText(s.name, { node: '{ id: refund, type: service_task, action: log_refund }' })),
    ],
    ['a newer version that denies the action', (s) => s.publish(graphText(s.name, { gate: 'deny' }))],
  ])('warn and say the call will not run after %s', async (_label, change) => {
    const s = await graphStepScenario();
    await change(s);
    const { page, result } = await pageThenApprove(s);
    expect(page).toContain(WITHDRAWN);
    expect(result).toBe(RESULT_TITLES.approved_withdrawn);
  });
});

describe("Approval pages of an agent run's call, replaced or deleted (as the graph cases)", () => {
  it.each<[string, (s: Awaited<ReturnType<typeof approvalScenario>>) => Promise<void>]>([
    [
      'the workflow deleted',
      async (s) => {
        const head = (await store.getWorkflowHead(s.run.owner, s.run.workflowId))!;
        await store.updateWorkflowHead(head, { ...head, enabled: false, deleted: true }, true);
      },
    ],
    [
      'a newer version without the action',
      async (s) => {
        const head = (await store.getWorkflowHead(s.run.owner, s.run.workflowId))!;
        const version = (await store.getWorkflowVersion(head.owner, head.workflowId, head.latestVersion))!;
        const next = { ...head, latestVersion: head.latestVersion + 1 };
        const definition = { ...version.definition, allowedActions: ['notes_put'], gates: {} };
        await store.addWorkflowVersion(head, next, {
          ...version,
          version: next.latestVersion,
          definition: definition as typeof version.definition,
        });
      },
    ],
  ])('warn and say the call will not run after %s', async (_label, change) => {
    const s = await approvalScenario(wire);
    await change(s);
    const { page, result } = await pageThenApprove({
      app: s.app,
      link: s.linkOf(BOSS),
      approvalId: s.approvalId,
    });
    expect(page).toContain(WITHDRAWN);
    expect(result).toBe(RESULT_TITLES.approved_withdrawn);
  });
});
