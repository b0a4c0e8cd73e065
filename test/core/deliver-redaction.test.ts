/**
 * An HTTP delivery's answer is kept (as the delivery's detail) redacted of every credential of the workflow,
 * in a fresh Deliver container too: the connector resolves only its own slot, yet the receiver's answer
 * carries another slot's value. And when a credential cannot be resolved now, nothing is sent and nothing is
 * recorded: the error is the retryable CredentialUnavailableError (before: the detail kept the other value);
 * when it can never be (not found, access denied) the delivery is refused and recorded, nothing sent.
 */
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { deliverResult } from '../../shared/core/deliver.ts';
import { CredentialUnavailableError } from '../../shared/core/errors.ts';
import type { SecretsPort } from '../../shared/core/ports.ts';
import { REDACTED } from '../../shared/credentials/redactor.ts';
import { createEgress } from '../../shared/egress/index.ts';
import { destinations } from '../../shared/runtime/destinations.ts';
import { actionCatalogFor } from '../../shared/runtime/engine-deps.ts';
import { secretsFile } from '../actions/support.ts';
import { answeringSecrets } from '../support/answering-secrets.ts';
import { driveRun, engineDeps, ScriptedModel, text } from '../support/engine.ts';
import {
  FixedClock,
  minimalWorkflow,
  seedRun,
  seedWorkflow,
  testStore,
  uniqueOwner,
} from '../support/store.ts';

const HOOK = 'wfsecret-DeliverHook-Rb3+Yt/72Lp=Qa40';
const OTHER = 'wfsecret-DeliverOther-Mv8+Ck/15Wd=Js63';
const OWNER = uniqueOwner();
const VALUES = { [`wf/${OWNER}/hook`]: HOOK, [`wf/${OWNER}/other`]: OTHER };

const store = testStore();
const clock = new FixedClock();
let receiver: { port: number; received: number; close(): Promise<void> };

beforeAll(async () => {
  const server = createServer((request, response) => {
    request.resume();
    request.on('end', () => {
      receiver.received += 1;
      // A debug answer that echoes a value of a slot this connector never resolved.
      response.writeHead(200, { 'content-type': 'text/plain' }).end(`accepted; shared key ${OTHER}`);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  receiver = {
    port: (server.address() as AddressInfo).port,
    received: 0,
    close: () => new Promise((resolve) => server.close(() => resolve())),
  };
});
afterAll(() => receiver.close());

async function finishedRun(): Promise<string> {
  const { version } = await seedWorkflow(
    store,
    minimalWorkflow({
      name: `deliver-redaction-${receiver.received}-${Math.random().toString(36).slice(2, 8)}`,
      credRefs: { hook: { secret: `wf/${OWNER}/hook` }, other: { secret: `wf/${OWNER}/other` } },
      connectors: {
        results_hook: {
          kind: 'http',
          description: 'Receives run results.',
          method: 'POST',
          url: `http://127.0.0.1:${receiver.port}/results`,
          credential: { slot: 'hook' },
          input: {
            type: 'object',
            properties: {
              runId: { type: 'string' },
              workflow: { type: 'string' },
              result: { type: 'string' },
            },
          },
        },
      },
      destination: { type: 'http', action: 'results_hook' },
    }),
    { owner: OWNER },
  );
  const run = await seedRun(store, version);
  const model = new ScriptedModel([{ content: [text('Done.')], stopReason: 'end_turn' }]);
  await driveRun(engineDeps(store, model, { clock, secrets: secretsFile(VALUES) }), run.runId);
  return run.runId;
}

/** Deliver's dependencies with its own (fresh) secrets port, as a cold Deliver container has. */
const deliverDeps = (secrets: SecretsPort) => ({
  store,
  clock,
  destinations: destinations({
    catalog: actionCatalogFor(store, { publish: { internalHosts: ['127.0.0.1'] } }),
    egress: createEgress({ allowLoopbackPorts: [receiver.port] }),
    secrets,
    clock,
  }),
});

describe('HTTP delivery redaction', () => {
  it('keeps the answer redacted of a slot the connector never resolved, in a fresh container', async () => {
    // Prepare
    const runId = await finishedRun();

    // Act
    const delivered = await deliverResult(deliverDeps(secretsFile(VALUES)), runId);

    // Assess
    expect(delivered?.delivery).toMatchObject({
      status: 'delivered',
      detail: expect.stringContaining(`accepted; shared key ${REDACTED}`),
    });
    expect(JSON.stringify(await store.getRun(runId))).not.toContain(OTHER);
  });

  it('sends nothing and records nothing while a credential of the workflow cannot be resolved now', async () => {
    // Prepare: the other slot's secret is throttled in this container.
    const runId = await finishedRun();
    const before = receiver.received;
    const secrets = answeringSecrets({
      [`wf/${OWNER}/hook`]: { value: HOOK },
      [`wf/${OWNER}/other`]: { error: 'ThrottlingException' },
    });

    // Act
    const refused = deliverResult(deliverDeps(secrets), runId);

    // Assess
    await expect(refused).rejects.toBeInstanceOf(CredentialUnavailableError);
    expect(receiver.received).toBe(before);
    expect((await store.getRun(runId))?.delivery).toBeUndefined();
  });

  it.each(['ResourceNotFoundException', 'AccessDeniedException'])(
    'records a refused delivery, nothing sent, when a credential is answered %s',
    async (answer) => {
      // Prepare: the other slot's secret can never be read (before: retried as CredentialUnavailableError).
      const runId = await finishedRun();
      const before = receiver.received;
      const secrets = answeringSecrets({
        [`wf/${OWNER}/hook`]: { value: HOOK },
        [`wf/${OWNER}/other`]: { error: answer },
      });

      // Act
      await deliverResult(deliverDeps(secrets), runId);

      // Assess
      expect(receiver.received).toBe(before);
      const delivery = (await store.getRun(runId))?.delivery;
      expect(delivery).toMatchObject({
        status: 'refused',
        detail: expect.stringContaining("credential 'other'"),
      });
      expect(JSON.stringify(delivery)).not.toContain(OTHER);
    },
  );
});
