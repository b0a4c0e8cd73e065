/**
 * Builders of the tenancy check's probes (tenancy-probe.ts), shared by the rows of tenancy-fixtures.ts: one
 * probe per run or workflow kind of A's, the same probe as each client, bodies of B's naming one of A's
 * secrets, topics or approvers, and page tokens of A's; and the definitions and clients B's requests name.
 */
import { humanTaskId } from '../../shared/schemas/human-task.ts';
import { baseGrant } from '../jobs/support.ts';
import { missingRunId } from '../support/store.ts';
import { type IdKind, lit, own, type Probe, ref, type Value } from './tenancy-probe.ts';

export const runKinds: IdKind[] = ['agentRun', 'graphRun', 'externalRun', 'jobRun', 'childRun'];
export const workflowKinds: IdKind[] = ['agentWorkflow', 'graphWorkflow', 'externalWorkflow'];
export const eachRun = (
  extra: Omit<Probe, 'as' | 'params'> = {},
  params: Record<string, Value> = {},
): Probe[] => runKinds.map((id) => ({ as: 'ownerB', params: { id, ...params }, ...extra }));
export const eachWorkflow = (extra: Omit<Probe, 'as' | 'params'> = {}, params: Record<string, Value> = {}) =>
  workflowKinds.map((id): Probe => ({ as: 'ownerB', params: { id, ...params }, ...extra }));
/** The same probe as B's client and as A's other client (the job routes are per client). */
export const asClients = (probe: Omit<Probe, 'as'>): Probe[] => [
  { as: 'clientB', ...probe },
  { as: 'siblingA', ...probe },
];

/** A definition B could save: valid, so only the id decides the answer. */
export const agentDefinition = (name: string) => ({
  name,
  description: 'tenancy check',
  model: { id: 'claude-sonnet-5-5', maxTokens: 512 },
  prompt: { system: 'Say done.' },
  allowedActions: ['current_time'],
  trigger: { type: 'on_demand' },
  budget: { maxUsdPerRun: 1, maxTurns: 2, maxToolCallsPerTurn: 1 },
});
/** A graph B could save, its agent step's gate and its human task naming `approver`. */
export const graphDefinition = (name: string, approver: unknown) => ({
  kind: 'graph',
  name,
  description: 'tenancy check',
  nodes: [
    { id: 'start', type: 'start' },
    {
      id: 'work',
      type: 'agent_task',
      model: { id: 'claude-sonnet-5-5', maxTokens: 512 },
      system: 'Say done.',
      prompt: 'Say done.',
      allowedActions: ['notes_append'],
      gates: { notes_append: { mode: 'needs_approval', approvers: [approver] } },
    },
    {
      id: 'review',
      type: 'human_task',
      title: 'Review',
      assignees: [approver],
      form: { type: 'object', properties: { ok: { type: 'boolean' } } },
      timeoutSeconds: 3600,
    },
    { id: 'end', type: 'end' },
  ],
  edges: [
    { from: 'start', to: 'work' },
    { from: 'work', to: 'review' },
    { from: 'review', to: 'end' },
  ],
  trigger: { type: 'on_demand' },
  budget: { maxUsdPerRun: 1 },
});
/** Approval defaults and a gate naming `approver` (a workflow's, or a grant's jobs'). */
const gatedBy = (approver: unknown) => ({
  allowedActions: ['notes_append'],
  gates: { notes_append: { mode: 'needs_approval', approvers: [approver] } },
  approvals: { approvers: [approver], timeoutSeconds: 600 },
});
export const grantChange = { grant: baseGrant({ maxTurns: 4 }) };
/** Owner A's clients, and B's. */
export const CLIENTS = { a: 'a-bot', b: 'b-bot', sibling: 'a-other' } as const;
/**
 * Bodies of B's naming A's credential secret (or alert topic): refused for A's as for one of nobody's, naming
 * the field, and nothing written.
 */
const secretRefs = { api: { secret: ref('secret') } };
const refusedBodyProbe = (field: string, json: unknown, extra: Omit<Probe, 'as' | 'json'> = {}): Probe => ({
  as: 'ownerB',
  json,
  status: 400,
  field,
  ...extra,
});
export const definitionSecret = (name: string, extra: Omit<Probe, 'as' | 'json'> = {}) =>
  refusedBodyProbe('credRefs.api.secret', { ...agentDefinition(name), credRefs: secretRefs }, extra);
/** A definition of B's whose alert names A's topic: refused as an undeclared topic is, naming the field. */
export const definitionTopic = (name: string, extra: Omit<Probe, 'as' | 'json'> = {}) =>
  refusedBodyProbe(
    'destination.topicArn',
    { ...agentDefinition(name), destination: { type: 'alert', topicArn: ref('alertTopic') } },
    extra,
  );
/** Definitions of B's naming A's approver: refused as an undeclared approver is, naming the field. */
export const definitionApprover = (name: string, extra: Omit<Probe, 'as' | 'json'> = {}) =>
  refusedBodyProbe(
    'approvals.approvers[0]',
    { ...agentDefinition(name), ...gatedBy(ref('approver')) },
    extra,
  );
export const graphApprover = (name: string, extra: Omit<Probe, 'as' | 'json'> = {}) =>
  refusedBodyProbe('nodes[2].assignees[0]', graphDefinition(name, ref('approver')), extra);
export const grantApprover = (json: Record<string, unknown>, extra: Omit<Probe, 'as' | 'json'> = {}) => {
  const { allowedActions: _, ...gates } = gatedBy(ref('approver'));
  return refusedBodyProbe(
    'grant.approvals.approvers[0]',
    { ...json, grant: { ...baseGrant(), ...gates } },
    extra,
  );
};
export const grantSecret = (json: Record<string, unknown>, extra: Omit<Probe, 'as' | 'json'> = {}) =>
  refusedBodyProbe(
    'grant.credRefs.api.secret',
    { ...json, grant: { ...baseGrant(), credRefs: secretRefs } },
    extra,
  );
/** A page token of A's listing, sent as B: refused as a token of nobody's listing is, naming `nextToken`. */
export const tokenProbe = (
  nextToken: IdKind,
  extra: Omit<Probe, 'as' | 'query'> = {},
  query: Record<string, Value> = { limit: lit('1') },
): Omit<Probe, 'as'> => ({
  query: { ...query, nextToken },
  status: 400,
  field: 'nextToken',
  ...extra,
});
/** A token of one of A's runs on B's own run. */
export const runTokenProbe = (nextToken: IdKind, query?: Record<string, Value>): Probe => ({
  as: 'ownerB',
  ...tokenProbe(nextToken, { params: { id: own('run') } }, query),
});
/** A human task of nobody's run. */
export const MISSING_TASK = humanTaskId(missingRunId(), 'manager_review', 1);
/** A link token of the right shape that no key signed. */
export const FORGED = `v1.${'A'.repeat(43)}.${'B'.repeat(43)}`;
export const event = {
  Entries: [{ Source: 'com.example.orders', DetailType: 'Order Placed', Detail: '{}' }],
};
