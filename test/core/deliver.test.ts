import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { deliverResult, renderReport } from '../../shared/core/deliver.ts';
import { createEgress } from '../../shared/egress/index.ts';
import { destinations } from '../../shared/runtime/destinations.ts';
import { actionCatalogFor } from '../../shared/runtime/engine-deps.ts';
import { type SnsWire, startSnsWire } from '../notify/sns-wire.ts';
import { driveRun, engineDeps, noSecrets, ScriptedModel, text, toolUse } from '../support/engine.ts';
import { FixedClock, minimalWorkflow, seedRun, seedWorkflow, testStore } from '../support/store.ts';
import { withStoreOverrides } from '../support/store-overrides.ts';

const store = testStore();
const clock = new FixedClock();
const TOPIC = 'arn:aws:sns:eu-central-1:123456789012:wf-alerts';
let sns: SnsWire;
let receiver: { url: string; port: number; bodies: unknown[]; close(): Promise<void> };

beforeAll(async () => {
  sns = await startSnsWire();
  const bodies: unknown[] = [];
  const server = createServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => {
      bodies.push(JSON.parse(Buffer.concat(chunks).toString('utf8')));
      response.writeHead(202, { 'content-type': 'application/json' }).end('{"accepted":true}');
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as AddressInfo).port;
  receiver = {
    url: `http://127.0.0.1:${port}`,
    port,
    bodies,
    close: () => new Promise((resolve) => server.close(() => resolve())),
  };
});
afterAll(async () => {
  await sns.close();
  await receiver.close();
});

async function finishedRun(workflow: Record<string, unknown>) {
  return (await finishedRunOf(workflow)).runId;
}

async function finishedRunOf(workflow: Record<string, unknown>) {
  const { head, version } = await seedWorkflow(store, minimalWorkflow(workflow));
  const run = await seedRun(store, version);
  await driveRun(
    engineDeps(
      store,
      new ScriptedModel([{ content: [text('The digest is ready.')], stopReason: 'end_turn' }]),
      { clock },
    ),
    run.runId,
  );
  return { runId: run.runId, head, version };
}

/** Publishes version 2 of the run's workflow: version 1's definition with `change` applied. */
async function publishVersion2(
  { head, version }: Awaited<ReturnType<typeof finishedRunOf>>,
  change: Record<string, unknown>,
) {
  await store.addWorkflowVersion(
    head,
    { ...head, latestVersion: 2 },
    { ...version, version: 2, definition: { ...version.definition, ...change } as typeof version.definition },
  );
}

/**
 * A connector posting to the receiver (started in beforeAll, hence a function) whose input takes the
 * delivery's payload: a refusal in a test using it is the policy's, not the input schema's.
 */
const resultsHook = () => ({
  kind: 'http',
  description: 'Receives run results.',
  method: 'POST',
  url: `${receiver.url}/results`,
  input: {
    type: 'object',
    properties: { runId: { type: 'string' }, workflow: { type: 'string' }, result: { type: 'string' } },
    required: ['result'],
  },
});

const deps = (topics: Pick<Parameters<typeof destinations>[0], 'allowedTopicArns' | 'topicOwners'> = {}) => ({
  store,
  clock,
  destinations: destinations({
    ...topics,
    sns: sns.client,
    defaultTopicArn: TOPIC,
    // The receiver stands for an internal service (an unsafe call outside would need approval).
    catalog: actionCatalogFor(store, { publish: { internalHosts: ['127.0.0.1'] } }),
    egress: createEgress({ allowLoopbackPorts: [receiver.port] }),
    secrets: noSecrets,
    clock,
  }),
});

describe('deliverResult', () => {
  it('keeps a Markdown report on the run for a report destination, once', async () => {
    const runId = await finishedRun({ destination: { type: 'report', title: 'Digest' } });
    const delivered = await deliverResult(deps(), runId);
    expect(delivered?.delivery).toMatchObject({
      destination: 'report',
      status: 'delivered',
      report: expect.stringContaining('# Digest'),
    });
    expect(delivered?.delivery?.report).toContain('The digest is ready.');
    const again = await deliverResult(deps(), runId);
    expect(again?.rev).toBe(delivered?.rev);
    expect((await store.listAudit(runId)).filter((entry) => entry.type === 'delivered')).toHaveLength(1);
  });

  it('reads the workflow version and the ledger in one round trip, not one after the other', async () => {
    // Prepare: a fresh store (nothing cached) whose version and ledger reads log when they start and end.
    const runId = await finishedRun({ destination: { type: 'report' } });
    const fresh = testStore();
    const log: string[] = [];
    const logged =
      <A extends unknown[], R>(name: string, read: (...args: A) => Promise<R>) =>
      async (...args: A): Promise<R> => {
        log.push(`start ${name}`);
        try {
          return await read(...args);
        } finally {
          log.push(`end ${name}`);
        }
      };
    const watched = withStoreOverrides(fresh, {
      getWorkflowVersion: logged('version', fresh.getWorkflowVersion.bind(fresh)),
      listLedger: logged('ledger', fresh.listLedger.bind(fresh)),
    });

    // Act
    const delivered = await deliverResult({ ...deps(), store: watched }, runId);

    // Assess: both out before either came back.
    expect(delivered?.delivery?.status).toBe('delivered');
    expect(log.slice(0, 2).sort()).toEqual(['start ledger', 'start version']);
  });

  it('publishes an alert to SNS', async () => {
    const runId = await finishedRun({ destination: { type: 'alert', subject: 'Digest ready' } });
    const before = sns.calls.length;
    const delivered = await deliverResult(deps(), runId);
    const call = sns.calls[before];
    expect(call?.params.get('Action')).toBe('Publish');
    expect(call?.params.get('TopicArn')).toBe(TOPIC);
    expect(call?.params.get('Subject')).toBe('Digest ready');
    expect(call?.params.get('Message')).toContain('The digest is ready.');
    // The run's owner, for subscription filter policies (before the fix: no attribute at all).
    expect(call?.params.get('MessageAttributes.entry.1.Name')).toBe('owner');
    expect(call?.params.get('MessageAttributes.entry.1.Value.StringValue')).toBe(
      (await store.getRun(runId))?.owner,
    );
    expect(delivered?.delivery).toMatchObject({
      destination: 'alert',
      status: 'delivered',
      detail: expect.stringMatching(/^sns message /),
    });
  });

  it('refuses an alert to a topic since declared for other owners: recorded, nothing published', async () => {
    const theirs = 'arn:aws:sns:eu-central-1:123456789012:other-team';
    // Saved while the topic was every owner's; the deployment has since restricted it to another owner.
    const runId = await finishedRun({ destination: { type: 'alert', topicArn: theirs } });
    const before = sns.calls.length;
    const delivered = await deliverResult(
      deps({ allowedTopicArns: [theirs], topicOwners: { [theirs]: ['someone-else'] } }),
      runId,
    );
    expect(sns.calls.length).toBe(before);
    expect(delivered?.delivery).toMatchObject({
      destination: 'alert',
      status: 'refused',
      detail: expect.stringContaining('is not an alert topic this deployment declares for this owner'),
    });
  });

  it.each([
    ['stores its results', { destination: { type: 'stored' } }],
    [
      'alerts another topic',
      { destination: { type: 'alert', topicArn: 'arn:aws:sns:eu-central-1:123456789012:elsewhere' } },
    ],
  ])('refuses an alert when a later version %s: nothing is published', async (_label, change) => {
    // Prepare: the run is bound to version 1, which alerts the default topic; version 2 does not.
    const seeded = await finishedRunOf({ destination: { type: 'alert' } });
    const { runId } = seeded;
    await publishVersion2(seeded, change);
    const before = sns.calls.length;

    // Act
    const delivered = await deliverResult(deps(), runId);

    // Assess: the latest version withdrew the alert, as it withdraws an HTTP delivery.
    expect(sns.calls.length).toBe(before);
    expect(delivered?.delivery).toMatchObject({
      destination: 'alert',
      status: 'refused',
      detail: expect.stringContaining("the workflow's latest version no longer alerts this topic"),
    });
  });

  it('posts to a named HTTP destination through the connector and the egress guard', async () => {
    const runId = await finishedRun({
      connectors: {
        results_hook: {
          kind: 'http',
          description: 'Receives run results.',
          method: 'POST',
          url: `${receiver.url}/results`,
          input: {
            type: 'object',
            properties: {
              runId: { type: 'string' },
              workflow: { type: 'string' },
              result: { type: 'string' },
            },
            required: ['result'],
          },
        },
      },
      destination: { type: 'http', action: 'results_hook' },
    });
    const delivered = await deliverResult(deps(), runId);
    expect(receiver.bodies.at(-1)).toMatchObject({
      runId,
      workflow: 'test-flow',
      result: 'The digest is ready.',
    });
    expect(delivered?.delivery).toMatchObject({ destination: 'http', status: 'delivered' });
    expect((await store.getRun(runId))?.delivery?.status).toBe('delivered');
  });

  it.each([
    ['in allowedActions', ['results_hook']],
    ['not in allowedActions', []],
  ])(
    'denies delivery to a connector whose gate is deny (%s): nothing is sent, the refusal is recorded',
    async (_label, allowed) => {
      // Prepare
      const runId = await finishedRun({
        allowedActions: ['current_time', ...allowed],
        gates: { results_hook: 'deny' },
        connectors: {
          results_hook: {
            kind: 'http',
            description: 'Receives run results.',
            method: 'POST',
            url: `${receiver.url}/results`,
          },
        },
        destination: { type: 'http', action: 'results_hook' },
      });
      const received = receiver.bodies.length;

      // Act
      await deliverResult(deps(), runId);

      // Assess
      expect(receiver.bodies).toHaveLength(received);
      expect((await store.getRun(runId))?.delivery).toMatchObject({
        destination: 'http',
        status: 'refused',
        detail: expect.stringContaining("its gate is 'deny'"),
      });
    },
  );

  it('records a refused delivery on the run instead of retrying it', async () => {
    // The guard refuses the receiver's port (not allowed), so the connector's call fails for good.
    const runId = await finishedRun({
      connectors: {
        results_hook: {
          kind: 'http',
          description: 'Receives run results.',
          method: 'POST',
          url: 'http://127.0.0.1:9/results',
        },
      },
      destination: { type: 'http', action: 'results_hook' },
    });
    await deliverResult(deps(), runId);
    const delivered = await store.getRun(runId);
    expect(delivered?.delivery).toMatchObject({
      destination: 'http',
      status: 'refused',
      detail: expect.stringMatching(/^refused: /),
    });
    expect((await store.listAudit(runId)).at(-1)).toMatchObject({
      type: 'error',
      data: { name: 'DeliveryRefusedError' },
    });
  });
});

describe('deliverResult: degraded runs', () => {
  it('delivers a run whose call was refused, marked degraded, to an HTTP destination and a report', async () => {
    // Prepare: the model asks for a denied action, then finishes its work.
    const { version } = await seedWorkflow(
      store,
      minimalWorkflow({
        allowedActions: ['current_time', 'notes_append'],
        gates: { notes_append: 'deny' },
        connectors: {
          results_hook: {
            kind: 'http',
            description: 'Receives run results.',
            method: 'POST',
            url: `${receiver.url}/results`,
            input: {
              type: 'object',
              properties: {
                runId: { type: 'string' },
                workflow: { type: 'string' },
                result: { type: 'string' },
                degraded: { type: 'boolean' },
                refused: {
                  type: 'array',
                  items: {
                    type: 'object',
                    properties: { tool: { type: 'string' }, reason: { type: 'string' } },
                  },
                },
              },
            },
          },
        },
        destination: { type: 'http', action: 'results_hook' },
      }),
    );
    const seeded = await seedRun(store, version);
    await driveRun(
      engineDeps(
        store,
        new ScriptedModel([
          { content: [toolUse('n1', 'notes_append', { name: 'log', line: 'x' })], stopReason: 'tool_use' },
          { content: [text('Done without the note.')], stopReason: 'end_turn' },
        ]),
        { clock },
      ),
      seeded.runId,
    );

    // Act
    await deliverResult(deps(), seeded.runId);
    const run = await store.getRun(seeded.runId);

    // Assess
    expect(run).toMatchObject({
      status: 'denied',
      stopReason: 'end_turn',
      degraded: { count: 1, refused: [{ tool: 'notes_append', toolUseId: 'n1' }] },
      delivery: { destination: 'http', status: 'delivered' },
    });
    expect(receiver.bodies.at(-1)).toMatchObject({
      runId: seeded.runId,
      result: 'Done without the note.',
      degraded: true,
      refused: [{ tool: 'notes_append', reason: expect.stringContaining('deny') }],
    });
    expect(renderReport(run!, version.definition, undefined, [])).toContain(
      '## Refused (1): this run is degraded',
    );
  });
});

describe('deliverResult: the live policy', () => {
  it.each([
    ['an alert', () => ({ destination: { type: 'alert', subject: 'Digest ready' } })],
    [
      'an HTTP destination',
      () => ({
        connectors: { results_hook: resultsHook() },
        destination: { type: 'http', action: 'results_hook' },
      }),
    ],
  ])('sends nothing to %s of a workflow disabled since its run ended', async (_label, workflow) => {
    // Prepare: the run is done; then its workflow is disabled.
    const { runId, head } = await finishedRunOf(workflow());
    await store.updateWorkflowHead(head, { ...head, enabled: false, updatedAt: new Date().toISOString() });
    const published = sns.calls.length;
    const received = receiver.bodies.length;

    // Act
    const delivered = await deliverResult(deps(), runId);

    // Assess: nothing left the store; the refusal is on the run and in its audit chain.
    expect(sns.calls.length).toBe(published);
    expect(receiver.bodies).toHaveLength(received);
    expect(delivered?.delivery).toMatchObject({
      status: 'refused',
      detail: expect.stringContaining('was disabled or deleted before its result was delivered'),
    });
    expect((await store.listAudit(runId)).at(-1)).toMatchObject({
      type: 'error',
      data: { name: 'DeliveryRefusedError' },
    });
  });

  it.each([
    ['drops the connector (and stores its results)', { connectors: {}, destination: { type: 'stored' } }],
    ['keeps the connector but stores its results', { destination: { type: 'stored' } }],
  ])('refuses an HTTP delivery when a later version %s: nothing is sent', async (_label, change) => {
    // Prepare: the run is bound to version 1, which posts its result to results_hook; version 2 does not.
    const workflow = {
      connectors: { results_hook: resultsHook() },
      destination: { type: 'http', action: 'results_hook' },
    };
    const seeded = await finishedRunOf(workflow);
    const { runId } = seeded;
    await publishVersion2(seeded, change);
    const received = receiver.bodies.length;

    // Act
    const delivered = await deliverResult(deps(), runId);

    // Assess: the latest version withdrew the delivery, as removing an action withdraws it from a run.
    expect(receiver.bodies).toHaveLength(received);
    expect(delivered?.delivery).toMatchObject({
      status: 'refused',
      detail: expect.stringContaining("the workflow's latest version no longer delivers to it"),
    });
  });

  it('refuses an HTTP delivery whose connector a later version points elsewhere: nothing is sent', async () => {
    // Prepare: version 2 still delivers to results_hook, but to another path of the receiver.
    const workflow = {
      connectors: { results_hook: resultsHook() },
      destination: { type: 'http', action: 'results_hook' },
    };
    const seeded = await finishedRunOf(workflow);
    await publishVersion2(seeded, {
      connectors: { results_hook: { ...resultsHook(), url: `${receiver.url}/moved` } },
    });
    const received = receiver.bodies.length;

    // Act
    const delivered = await deliverResult(deps(), seeded.runId);

    // Assess: neither the old URL (the owner replaced it) nor the new one (the run's version never named it).
    expect(receiver.bodies).toHaveLength(received);
    expect(delivered?.delivery).toMatchObject({
      status: 'refused',
      detail: expect.stringContaining("the workflow's latest version declares the connector differently"),
    });
  });

  it("refuses an HTTP delivery whose connector a later version's gate denies", async () => {
    // Prepare: version 2 gates the destination's connector `deny`; the run is bound to version 1.
    const workflow = {
      connectors: { results_hook: resultsHook() },
      destination: { type: 'http', action: 'results_hook' },
    };
    const seeded = await finishedRunOf(workflow);
    const { runId } = seeded;
    const denying = minimalWorkflow({ ...workflow, gates: { results_hook: 'deny' } });
    await publishVersion2(seeded, denying);
    const received = receiver.bodies.length;

    // Act
    const delivered = await deliverResult(deps(), runId);

    // Assess
    expect(receiver.bodies).toHaveLength(received);
    expect(delivered?.delivery).toMatchObject({
      status: 'refused',
      detail: expect.stringContaining("the workflow's latest version denies or no longer has it"),
    });
  });
});
