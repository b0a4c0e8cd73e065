/**
 * Test support: a run with a human task requested on it the way its graph wait requests it (humanTaskPort, the
 * context already evaluated), links in an inbox, and the task-token wire.
 */
import { randomUUID } from 'node:crypto';
import { sfnTaskTokens } from '../../shared/approvals-http/task-tokens.ts';
import type { HumanTaskNode } from '../../shared/graph-run/agent-view.ts';
import {
  humanTaskPort,
  type RequestHumanTaskDeps,
  type RequestHumanTaskResult,
} from '../../shared/human-tasks/index.ts';
import { inboxNotifier, type Notifier } from '../../shared/notify/index.ts';
import type { Run } from '../../shared/schemas/run.ts';
import type { SfnWire } from '../approvals-http/sfn-wire.ts';
import { keyring, PUBLIC_BASE, recordingLogger, store } from '../approvals-http/support.ts';
import { FixedClock, minimalWorkflow, seedRun, seedWorkflow } from '../support/store.ts';

export { keyring, PUBLIC_BASE, store };
export const MANAGER = 'manager@example.com';
export const DEPUTY = 'deputy@example.com';

/** A form with every field kind the page renders. */
export const FORM = {
  type: 'object',
  properties: {
    decision: { type: 'string', title: 'Decision', enum: ['approve', 'reject'] },
    note: { type: 'string', title: 'Note', format: 'long-text', maxLength: 500 },
    reference: { type: 'string', title: 'Reference', minLength: 3, maxLength: 20 },
    amount: { type: 'number', title: 'Amount', minimum: 0 },
    copies: { type: 'integer', title: 'Copies', minimum: 1, maximum: 5, default: 1 },
    urgent: { type: 'boolean', title: 'Urgent' },
  },
  required: ['decision', 'reference'],
  'x-order': ['decision', 'reference', 'note'],
  additionalProperties: false,
} as const;

export const node = (overrides: Partial<HumanTaskNode> = {}): HumanTaskNode => ({
  id: 'review',
  type: 'human_task',
  title: 'Manager review <refund>',
  assignees: [MANAGER, DEPUTY],
  form: FORM as unknown as Record<string, unknown>,
  context: ['steps.triage.output.amount', 'input.message', 'steps.nothing.output'],
  timeoutSeconds: 600,
  onTimeout: { action: 'fail' },
  ...overrides,
});

export const MESSAGE = 'Please refund my order <#42> & thanks';

/**
 * What the wait evaluates `node().context` to over a run whose input `message` is MESSAGE and whose `triage`
 * step output `{ amount: 250 }` (shared/graph-run/wait.ts; test/graph/human-task-context.test.ts evaluates paths
 * on that path): path → value, a missing one undefined.
 */
export const CONTEXT: Record<string, unknown> = {
  'steps.triage.output.amount': 250,
  'input.message': MESSAGE,
  'steps.nothing.output': undefined,
};

export async function seededRun(clock: FixedClock) {
  const { version } = await seedWorkflow(store, minimalWorkflow({ name: 'refund-request' }), { clock });
  return seedRun(store, version, { clock });
}

export function deps(
  wire: SfnWire,
  clock: FixedClock,
  notifier: Notifier = inboxNotifier(),
  publicBaseUrl = PUBLIC_BASE,
) {
  const logger = recordingLogger();
  const d: RequestHumanTaskDeps = {
    store,
    clock,
    keyring,
    publicBaseUrl,
    notifier,
    taskTokens: sfnTaskTokens(wire.client, { sleep: async () => {} }),
    logger,
  };
  return { deps: d, logger };
}

/**
 * Requests the task of `node`'s step attempt through humanTaskPort, as the wait does: the context is CONTEXT and
 * the window `timeoutSeconds` from now.
 */
export async function requestTask(
  d: RequestHumanTaskDeps,
  run: Run,
  request: { taskToken: string; attempt?: number; node?: Partial<HumanTaskNode> },
): Promise<RequestHumanTaskResult> {
  const asked = node(request.node);
  let result: RequestHumanTaskResult | undefined;
  await humanTaskPort(d, (outcome) => {
    result = outcome;
  }).request({
    owner: run.owner,
    runId: run.runId,
    stepId: asked.id,
    attempt: request.attempt ?? 1,
    workflowId: run.workflowId,
    workflowName: run.workflowName,
    taskToken: request.taskToken,
    title: asked.title,
    assignees: asked.assignees,
    form: asked.form,
    context: CONTEXT,
    expiresAt: new Date(d.clock.nowMs() + asked.timeoutSeconds * 1000).toISOString(),
  });
  if (result === undefined) throw new Error('humanTaskPort reported no outcome');
  return result;
}

/** A run with a human task on step `review`, its links in an inbox. */
export async function taskScenario(
  wire: SfnWire,
  overrides: Partial<HumanTaskNode> = {},
  publicBaseUrl = PUBLIC_BASE,
) {
  const clock = new FixedClock();
  const run = await seededRun(clock);
  const inbox = inboxNotifier();
  const { deps: d, logger } = deps(wire, clock, inbox, publicBaseUrl);
  const taskToken = `task-token-${randomUUID()}`;
  const requested = await requestTask(d, run, { taskToken, node: overrides });
  const linkOf = (assignee: string) => {
    const url = new URL(inbox.notices().find((notice) => notice.approver === assignee)!.url);
    return { path: `${url.pathname}${url.search}`, token: url.searchParams.get('t')! };
  };
  return { run, clock, inbox, deps: d, logger, taskToken, requested, linkOf, taskId: requested.taskId };
}
