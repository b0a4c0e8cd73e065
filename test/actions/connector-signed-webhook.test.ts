import { createHmac } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { connectorActions, verifyWebhookSignature, webhookSignature } from '../../shared/actions/index.ts';
import type { Action } from '../../shared/core/actions.ts';
import type { WorkflowDefinition } from '../../shared/schemas/workflow.ts';
import { FixedClock } from '../support/store.ts';
import {
  actionContext,
  definitionWith,
  type FakeRemote,
  fakeRemote,
  type Received,
  runParsed,
  secretsFile,
} from './support.ts';

const KEY = 'wfsecret-SigningKey-Hd5+Nc/72Wq=Pe13';
const NOW = '2026-11-30T07:00:00.000Z';
const NOW_SECONDS = Date.parse(NOW) / 1000;

/** The receiver's own check, written from the documented scheme (not with the runtime's helper). */
function receiverVerifies(request: Received): boolean {
  const timestamp = String(request.headers['x-signature-timestamp']);
  const expected = `sha256=${createHmac('sha256', KEY).update(`${timestamp}.${request.body}`).digest('hex')}`;
  return request.headers['x-signature-256'] === expected && Math.abs(NOW_SECONDS - Number(timestamp)) <= 300;
}

let remote: FakeRemote;
let definition: WorkflowDefinition;
let notify: Action;

beforeAll(async () => {
  remote = await fakeRemote((request) =>
    receiverVerifies(request) ? { status: 202, body: 'accepted' } : { status: 401, body: 'bad signature' },
  );
  definition = definitionWith({
    allowedActions: ['notify_ops'],
    connectors: {
      notify_ops: {
        kind: 'signed_webhook',
        url: `${remote.origin}/hooks/ops`,
        credential: { slot: 'ops_key' },
      },
    },
    credRefs: { ops_key: { secret: 'wf/owner-test/ops-key' } },
  });
  notify = connectorActions()('notify_ops', definition.connectors.notify_ops!, definition);
});
afterAll(() => remote.close());

describe('signed_webhook connector', () => {
  it('POSTs the input as JSON with a timestamped HMAC-SHA256 signature that the receiver verifies', async () => {
    // Prepare
    const ctx = actionContext({
      ports: [remote.port],
      secrets: secretsFile({ 'wf/owner-test/ops-key': KEY }),
      clock: new FixedClock(NOW),
      idempotencyKey: 'idem_r7_t1_toolu_3',
    });

    // Act
    const outcome = await runParsed(notify, { event: 'deploy', service: 'api', ok: true }, ctx);

    // Assess
    expect(outcome).toEqual({ content: 'Webhook answered HTTP 202.\n\naccepted', isError: false });
    const received = remote.received.at(-1)!;
    expect(received).toMatchObject({
      method: 'POST',
      path: '/hooks/ops',
      body: '{"event":"deploy","service":"api","ok":true}',
    });
    expect(received.headers).toMatchObject({
      'content-type': 'application/json',
      'x-signature-timestamp': String(NOW_SECONDS),
      'idempotency-key': 'idem_r7_t1_toolu_3',
    });
    expect(receiverVerifies(received)).toBe(true);
    expect(JSON.stringify(received)).not.toContain(KEY);
  });

  it('is an external publish by default, so it is irreversible and always needs approval', () => {
    expect(notify).toMatchObject({
      description: 'POST a JSON payload to a webhook, signed with HMAC-SHA256.',
      idempotent: false,
      irreversible: true,
    });
  });

  it('reports a receiver that rejects the call as an error', async () => {
    const wrongKey = actionContext({
      ports: [remote.port],
      secrets: secretsFile({ 'wf/owner-test/ops-key': 'another-signing-key-0000' }),
      clock: new FixedClock(NOW),
    });
    const outcome = await runParsed(notify, { event: 'x' }, wrongKey);
    expect(outcome).toEqual({ content: 'Webhook answered HTTP 401.\n\nbad signature', isError: true });
  });
});

describe('verifyWebhookSignature', () => {
  const body = '{"a":1}';
  const timestamp = NOW_SECONDS;
  const signature = webhookSignature(KEY, timestamp, body);
  const valid = { key: KEY, body, timestamp: String(timestamp), signature, nowSeconds: NOW_SECONDS };

  it('accepts the signature of the exact body and timestamp', () => {
    expect(signature).toMatch(/^sha256=[0-9a-f]{64}$/);
    expect(verifyWebhookSignature(valid)).toBe(true);
  });

  it.each([
    ['a changed body', { body: '{"a":2}' }],
    ['another key', { key: 'another-signing-key-0000' }],
    ['a moved timestamp (replay with a fresh time)', { timestamp: String(timestamp + 60) }],
    ['a stale timestamp', { nowSeconds: NOW_SECONDS + 301 }],
    ['a missing signature', { signature: undefined }],
    ['a malformed timestamp', { timestamp: '1e9' }],
  ])('rejects %s', (_name, change) => {
    expect(verifyWebhookSignature({ ...valid, ...change })).toBe(false);
  });
});
