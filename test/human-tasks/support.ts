/** Test support: a run with a human task requested on it, links in an inbox, and the task-token wire. */
import { randomUUID } from 'node:crypto';
import { sfnTaskTokens } from '../../shared/approvals-http/task-tokens.ts';
import type { HumanTaskNode, RequestHumanTaskDeps } from '../../shared/human-tasks/index.ts';
import { requestHumanTask } from '../../shared/human-tasks/index.ts';
import { inboxNotifier, type Notifier } from '../../shared/notify/index.ts';
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

export const RUN_DATA = {
  input: { message: 'Please refund my order <#42> & thanks' },
  steps: { triage: { status: 'succeeded', output: { amount: 250, reason: 'damaged' } } },
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
  const requested = await requestHumanTask(d, {
    runId: run.runId,
    stepId: 'review',
    taskToken,
    node: node(overrides),
    runData: RUN_DATA,
  });
  const linkOf = (assignee: string) => {
    const url = new URL(inbox.notices().find((notice) => notice.approver === assignee)!.url);
    return { path: `${url.pathname}${url.search}`, token: url.searchParams.get('t')! };
  };
  return { run, clock, inbox, deps: d, logger, taskToken, requested, linkOf, taskId: requested.taskId };
}
