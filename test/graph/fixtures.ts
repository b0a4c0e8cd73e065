/** Graph definitions for tests: the refund example shape from issue #13, which each bad case breaks in one place. */

/* biome-ignore lint/suspicious/noExplicitAny: test fixtures are mutated freely by the cases. */
type Loose = Record<string, any>;

const model = { id: 'claude-sonnet-5-5' };

export const refundGraph = (): Loose => ({
  kind: 'graph',
  name: 'refund-request',
  input: { type: 'object', properties: { message: { type: 'string' } }, required: ['message'] },
  trigger: { type: 'on_demand' },
  budget: { maxUsdPerRun: 2 },
  approvals: { approvers: ['manager@example.com'] },
  connectors: {
    issue_refund: {
      kind: 'http',
      description: 'Issue a refund.',
      method: 'POST',
      url: 'http://127.0.0.1:4010/refunds',
      idempotent: true,
      irreversible: true,
    },
  },
  nodes: [
    { id: 'start', type: 'start' },
    {
      id: 'triage',
      type: 'agent_task',
      model,
      system: 'You triage refund requests.',
      prompt: 'Customer message: {{ input.message }}',
      output: {
        type: 'object',
        properties: {
          amount: { type: 'number' },
          reason: { type: 'string' },
          customerId: { type: 'string' },
        },
        required: ['amount', 'reason', 'customerId'],
        additionalProperties: false,
      },
    },
    {
      id: 'manager_review',
      type: 'human_task',
      title: 'Approve a refund',
      assignees: ['manager@example.com'],
      form: {
        type: 'object',
        properties: {
          approve: { type: 'boolean', title: 'Approve the refund' },
          note: { type: 'string', format: 'long-text' },
        },
        required: ['approve'],
      },
      context: ['steps.triage.output.amount', 'steps.triage.output.reason'],
      timeoutSeconds: 3600,
      onTimeout: { action: 'continue', output: { approve: false, note: 'timed out' } },
    },
    {
      id: 'issue_refund',
      type: 'service_task',
      action: 'issue_refund',
      args: {
        amount: '{{ steps.triage.output.amount }}',
        customerId: '{{ steps.triage.output.customerId }}',
      },
    },
    {
      id: 'draft_reply',
      type: 'agent_task',
      model,
      system: 'You write replies to customers.',
      prompt: 'A refund of {{ steps.triage.output.amount }} was issued for: {{ input.message }}',
    },
    { id: 'done', type: 'end' },
    { id: 'declined', type: 'end' },
  ],
  edges: [
    { from: 'start', to: 'triage' },
    { from: 'triage', to: 'manager_review', when: 'steps.triage.output.amount > 100' },
    { from: 'triage', to: 'issue_refund', when: 'steps.triage.output.amount <= 100' },
    { from: 'manager_review', to: 'issue_refund', when: 'steps.manager_review.output.approve = true' },
    { from: 'manager_review', to: 'declined', when: 'steps.manager_review.output.approve = false' },
    { from: 'issue_refund', to: 'draft_reply' },
    { from: 'draft_reply', to: 'done' },
  ],
});

/** Node index by id in the refund graph (so cases read by name). */
export const at = (graph: Loose, id: string): number =>
  graph.nodes.findIndex((node: Loose) => node.id === id);

/** A service_task node calling a built-in action. */
export const serviceNode = (id: string): Loose => ({
  id,
  type: 'service_task',
  action: 'http_request',
  args: { url: 'http://127.0.0.1:4010/ping', method: 'GET' },
});

/** A graph with one `review` human task for `assignee` (a 60 s timeout unless given), between start and end. */
export const reviewGraph = (name: string, assignee: string, review: Loose = {}): Loose => ({
  kind: 'graph',
  name,
  trigger: { type: 'on_demand' },
  budget: { maxUsdPerRun: 1 },
  approvals: { approvers: [assignee] },
  nodes: [
    { id: 'start', type: 'start' },
    {
      id: 'review',
      type: 'human_task',
      title: 'Review',
      assignees: [assignee],
      form: { type: 'object', properties: { approve: { type: 'boolean' } }, required: ['approve'] },
      timeoutSeconds: 60,
      ...review,
    },
    { id: 'done', type: 'end' },
  ],
  edges: [
    { from: 'start', to: 'review' },
    { from: 'review', to: 'done' },
  ],
});
