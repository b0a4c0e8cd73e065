import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ActionInputError, ConnectorConfigError, connectorActions } from '../../shared/actions/index.ts';
import { type Action, toolSpecOf } from '../../shared/core/actions.ts';
import { evaluateGate } from '../../shared/core/gate.ts';
import type { WorkflowDefinition } from '../../shared/schemas/workflow.ts';
import {
  actionContext,
  definitionWith,
  type FakeRemote,
  fakeRemote,
  runParsed,
  secretsFile,
} from './support.ts';

const SECRET = 'wfsecret-HttpConnector-Lr6+Yt/31Hw=Qa90';
const secrets = () => secretsFile({ 'wf/owner-test/tickets': SECRET });
const toAction = connectorActions();

let remote: FakeRemote;
let definition: WorkflowDefinition;
let updateTicket: Action;
let searchTickets: Action;

beforeAll(async () => {
  remote = await fakeRemote((request) =>
    request.path.startsWith('/hop')
      ? { status: 307, headers: { location: `http://localhost:${remote.port}/stolen` } }
      : { headers: { 'content-type': 'application/json' }, body: '{"ok":true}' },
  );
  definition = definitionWith({
    allowedActions: ['update_ticket', 'search_tickets', 'hop', 'publish_post'],
    connectors: {
      update_ticket: {
        kind: 'http',
        description: 'Set the status of a ticket.',
        method: 'PATCH',
        url: `${remote.origin}/tickets/{ticket_id}/status?src=wf`,
        input: {
          type: 'object',
          properties: {
            status: { type: 'string', enum: ['open', 'closed'], description: 'New status.' },
            note: { type: 'string', maxLength: 20 },
            priority: { type: 'integer' },
          },
          required: ['status'],
        },
        credential: { slot: 'tickets_token', header: 'X-Api-Key', format: 'Key {secret}' },
        idempotent: true,
      },
      search_tickets: {
        kind: 'http',
        description: 'Search tickets.',
        method: 'GET',
        url: `${remote.origin}/search`,
        input: {
          type: 'object',
          properties: { q: { type: 'string' }, limit: { type: 'integer' } },
          required: ['q'],
        },
        credential: { slot: 'tickets_token' },
      },
      hop: {
        kind: 'http',
        description: 'Follows a redirect.',
        method: 'POST',
        url: `${remote.origin}/hop`,
        credential: { slot: 'tickets_token' },
      },
      publish_post: {
        kind: 'http',
        description: 'Publish.',
        method: 'POST',
        url: `${remote.origin}/posts`,
        externalPublish: true,
      },
    },
    credRefs: { tickets_token: { secret: 'wf/owner-test/tickets' } },
  });
  updateTicket = toAction('update_ticket', definition.connectors.update_ticket!, definition);
  searchTickets = toAction('search_tickets', definition.connectors.search_tickets!, definition);
});
afterAll(() => remote.close());

describe('http connector', () => {
  it('offers the model the declared JSON Schema, with path parameters added and unknown fields closed', () => {
    expect(toolSpecOf(updateTicket)).toEqual({
      name: 'update_ticket',
      description: 'Set the status of a ticket.',
      inputSchema: {
        type: 'object',
        properties: {
          status: { type: 'string', enum: ['open', 'closed'], description: 'New status.' },
          note: { type: 'string', maxLength: 20 },
          priority: { type: 'integer' },
          ticket_id: { type: 'string', description: 'Path parameter.' },
        },
        required: ['status', 'ticket_id'],
        additionalProperties: false,
      },
    });
    expect(updateTicket).toMatchObject({ idempotent: true, irreversible: false });
  });

  it('fills the path template URL-encoded, sends the rest as JSON with the credential in its slot and the Idempotency-Key', async () => {
    // Prepare
    const ctx = actionContext({
      ports: [remote.port],
      secrets: secrets(),
      idempotencyKey: 'idem_r1_t2_toolu_9',
    });

    // Act
    const outcome = await runParsed(
      updateTicket,
      { ticket_id: 'T/1 ?#', status: 'closed', note: 'done' },
      ctx,
    );

    // Assess
    expect(outcome).toEqual({
      content: 'HTTP 200\ncontent-type: application/json\n\n{"ok":true}',
      isError: false,
    });
    const received = remote.received.at(-1)!;
    expect(received).toMatchObject({
      method: 'PATCH',
      path: '/tickets/T%2F1%20%3F%23/status?src=wf',
      body: '{"status":"closed","note":"done"}',
    });
    expect(received.headers).toMatchObject({
      'x-api-key': `Key ${SECRET}`,
      'idempotency-key': 'idem_r1_t2_toolu_9',
      'content-type': 'application/json',
    });
    expect(received.headers.authorization).toBeUndefined();
  });

  it('sends a GET connector’s input as query parameters, with the default Bearer format', async () => {
    const ctx = actionContext({ ports: [remote.port], secrets: secrets() });
    await runParsed(searchTickets, { q: 'printer & fax', limit: 5 }, ctx);
    const received = remote.received.at(-1)!;
    expect(received).toMatchObject({ method: 'GET', path: '/search?q=printer+%26+fax&limit=5', body: '' });
    expect(received.headers.authorization).toBe(`Bearer ${SECRET}`);
  });

  it.each(['..', '.', ''])('refuses the path parameter %j before sending anything', async (value) => {
    const before = remote.received.length;
    const ctx = actionContext({ ports: [remote.port], secrets: secrets() });
    await expect(updateTicket.run({ ticket_id: value, status: 'open' }, ctx)).rejects.toThrow(
      ActionInputError,
    );
    expect(remote.received.length).toBe(before);
  });

  it.each([
    ['an unknown field', { ticket_id: 'a', status: 'open', headers: { Host: 'x' } }],
    ['a value outside the enum', { ticket_id: 'a', status: 'deleted' }],
    ['a string over maxLength', { ticket_id: 'a', status: 'open', note: 'x'.repeat(21) }],
    ['a non-integer', { ticket_id: 'a', status: 'open', priority: 1.5 }],
    ['a missing path parameter', { status: 'open' }],
  ])('rejects %s at the schema', (_name, input) => {
    expect(updateTicket.input.safeParse(input).success).toBe(false);
  });

  it('reaches only the connector’s own host: a redirect elsewhere is refused and the credential never leaves', async () => {
    const hop = toAction('hop', definition.connectors.hop!, definition);
    const before = remote.received.length;
    const outcome = await runParsed(hop, {}, actionContext({ ports: [remote.port], secrets: secrets() }));
    expect(outcome).toEqual({
      content: expect.stringContaining(
        'POST request was sent to its target and answered with a redirect that was not followed',
      ),
      isError: true,
      outcomeUnknown: true,
    });
    expect(remote.received.slice(before).map((r) => r.path)).toEqual(['/hop']);
  });

  it('refuses a connector whose host is templated, without resolving the credential or sending', async () => {
    const templated = definitionWith({
      allowedActions: ['tenant_call'],
      connectors: {
        tenant_call: { kind: 'http', description: 'x', method: 'GET', url: 'http://{tenant}.example.com/x' },
      },
    });
    const action = toAction('tenant_call', templated.connectors.tenant_call!, templated);
    await expect(
      action.run({ tenant: 'evil' }, actionContext({ ports: [remote.port], secrets: secrets() })),
    ).rejects.toThrow(ConnectorConfigError);
  });

  it('makes an external-publish connector irreversible, so the gate asks for approval even when the workflow allows it', () => {
    const action = toAction('publish_post', definition.connectors.publish_post!, definition);
    expect(action.irreversible).toBe(true);
    const grant = new Map([
      ['publish_post', { mode: 'allow' as const, approvers: ['boss@example.com'], timeoutSeconds: 600 }],
    ]);
    const catalog = { resolve: () => action };
    expect(evaluateGate({ name: 'publish_post', input: {} }, grant, catalog, definition).decision).toBe(
      'needs_approval',
    );
  });
});
