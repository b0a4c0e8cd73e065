/**
 * A grant's approvers are checked as a workflow's are: every approver its gates or approval defaults name must
 * be declared for the granting owner, or the change is a 400 naming the field (under `grant.`) with the words a
 * workflow save uses, and nothing is stored. An approver declared only for another owner answers exactly as
 * one declared for nobody.
 */
import { randomUUID } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { declaredApprovers } from '../../shared/notify/index.ts';
import { apiHarness, definition, ownTableName } from '../api/helpers.ts';
import { uniqueOwner } from '../support/store.ts';

// The deployment declared carol for alice only, boss for both (WF_APPROVER_OWNERS).
const tableName = await ownTableName();
const owners = { alice: uniqueOwner(), bob: uniqueOwner() };
const h = apiHarness({
  owners,
  tableName,
  approverReach: declaredApprovers('sns', {
    'carol@example.com': [owners.alice],
    'boss@example.com': [owners.alice, owners.bob],
  }),
});

const grant = (overrides: Record<string, unknown> = {}) => ({
  name: 'job-helper',
  actions: ['current_time', 'notes_append'],
  gates: { notes_append: 'needs_approval' },
  approvals: { approvers: ['boss@example.com'], timeoutSeconds: 600 },
  models: ['claude-sonnet-5-5'],
  maxTurns: 5,
  maxUsdPerJob: 1,
  concurrency: 2,
  scopes: ['jobs:submit', 'jobs:read'],
  ...overrides,
});
const gateNaming = (approver: string) => ({
  gates: { notes_append: { mode: 'needs_approval', approvers: ['boss@example.com', approver] } },
});
const clientId = () => `bot-${randomUUID().slice(0, 8)}`;

describe('Grants API: approvers must be declared for the granting owner', () => {
  it('grants a client whose approvers are all declared for its owner', async () => {
    const created = await h.alice.post('/v1/grants', {
      clientId: clientId(),
      grant: grant({ approvals: { approvers: ['carol@example.com'] }, ...gateNaming('CAROL@example.com') }),
    });
    expect(created.status).toBe(201);
  });

  it("refuses bob's grant naming alice's approver with 400 on grant.gates.<action>.approvers[i], worded as a workflow's refusal, storing nothing", async () => {
    // Prepare
    const bot = clientId();

    // Act
    const carol = await h.bob.post('/v1/grants', {
      clientId: bot,
      grant: grant(gateNaming('carol@example.com')),
    });
    const eve = await h.bob.post('/v1/grants', {
      clientId: bot,
      grant: grant(gateNaming('eve@example.com')),
    });
    const workflow = await h.bob.post(
      '/v1/workflows',
      definition({
        allowedActions: ['notes_append'],
        approvals: { approvers: ['boss@example.com'], timeoutSeconds: 600 },
        ...gateNaming('carol@example.com'),
      }),
    );

    // Assess
    expect(carol.status).toBe(400);
    expect(carol.body.error.fields).toEqual([
      { path: 'grant.gates.notes_append.approvers[1]', message: workflow.body.error.fields[0].message },
    ]);
    expect(workflow.body.error.fields[0].path).toBe('gates.notes_append.approvers[1]');
    // The same words for another owner's approver as for nobody's.
    expect(carol.body.error.fields[0].message.replace('carol', 'eve')).toBe(eve.body.error.fields[0].message);
    expect((await h.bob.get(`/v1/grants/${bot}`)).status).toBe(404);
  });

  it('refuses approvals.approvers[i] declared for another owner on create, and on widen keeps the stored version', async () => {
    // Prepare
    const bot = clientId();
    const refused = await h.bob.post('/v1/grants', {
      clientId: bot,
      grant: grant({ approvals: { approvers: ['carol@example.com'] } }),
    });
    const created = await h.bob.post('/v1/grants', { clientId: bot, grant: grant() });

    // Act
    const widened = await h.bob.post(`/v1/grants/${bot}/widen`, {
      grant: grant({ approvals: { approvers: ['boss@example.com', 'carol@example.com'] } }),
    });

    // Assess
    expect(refused.status).toBe(400);
    expect(refused.body.error.fields.map((field: { path: string }) => field.path)).toEqual([
      'grant.approvals.approvers[0]',
    ]);
    expect(created.status).toBe(201);
    expect(widened.status).toBe(400);
    expect(widened.body.error.fields.map((field: { path: string }) => field.path)).toEqual([
      'grant.approvals.approvers[1]',
    ]);
    expect((await h.bob.get(`/v1/grants/${bot}`)).body.grant.version).toBe(1);
  });
});
