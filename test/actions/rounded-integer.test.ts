/**
 * A model writes an account id past 2^53 as a JSON number. The Anthropic SDK reads the tool input with
 * JSON.parse, so the runtime only ever sees the nearest double, 12345678901234567000: under an `allow` gate the
 * connector was dispatched, and the receiver credited another account than the one the model named. The gate now
 * denies such a call in every mode (shared/core/inexact-number.ts) and tells the model to send the id as a string.
 * Through a whole run: the real Anthropic SDK against the scripted server sending the literal digits, the gate, the
 * ledger in DynamoDB Local, and a real loopback receiver behind the egress guard.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { connectorActions, createActionCatalog, httpBuiltins } from '../../shared/actions/index.ts';
import { createEgress } from '../../shared/egress/index.ts';
import { createAnthropicModel, startScriptedModelServer } from '../../shared/model/index.ts';
import { driveRun, engineDeps } from '../support/engine.ts';
import { minimalWorkflow, seedRun, seedWorkflow, testStore } from '../support/store.ts';
import { type FakeRemote, fakeRemote } from './support.ts';

const store = testStore();
const DIGITS = '12345678901234567890';
const FIXTURE = 'credit-by-number';
const ADVICE = 'send such a value (an id, say) as a string';

/**
 * JSON text that JSON.stringify writes as it is: the only way to have the scripted server (which writes fixtures
 * with JSON.stringify) send digits no double holds. Node 21+; not in TypeScript's lib yet.
 * https://developer.mozilla.org/en-US/docs/Web/JavaScript/Reference/Global_Objects/JSON/rawJSON
 */
const rawJson = (text: string): unknown =>
  (JSON as unknown as { rawJSON(text: string): unknown }).rawJSON(text);

let remote: FakeRemote;
let server: Awaited<ReturnType<typeof startScriptedModelServer>>;
beforeAll(async () => {
  remote = await fakeRemote(() => ({ headers: { 'content-type': 'application/json' }, body: '{"ok":true}' }));
  server = await startScriptedModelServer({
    fixtures: [
      {
        name: FIXTURE,
        turns: [
          {
            response: {
              content: [
                {
                  type: 'tool_use',
                  name: 'credit_account',
                  input: { account: { id: rawJson(DIGITS) }, note: 'refund' },
                },
              ],
            },
          },
          {
            expect: {
              toolResults: [
                { toolName: 'credit_account', contains: `input.account.id was read as`, isError: true },
                { toolName: 'credit_account', contains: ADVICE, isError: true },
              ],
            },
            text: 'I could not credit the account.',
          },
        ],
      },
    ],
  });
});
afterAll(async () => {
  await server.close();
  await remote.close();
});

const workflow = () =>
  minimalWorkflow({
    allowedActions: ['credit_account'],
    gates: { credit_account: 'allow' },
    connectors: {
      credit_account: {
        kind: 'http',
        description: 'Credit an account.',
        method: 'POST',
        url: `${remote.origin}/credits`,
        input: {
          type: 'object',
          properties: { account: { type: 'object' }, note: { type: 'string' } },
          required: ['account'],
        },
      },
    },
  });

describe('a tool call holding an integer past 2^53, under an allow gate', () => {
  it('the scripted server sends the literal digits', async () => {
    const response = await fetch(`${server.url}/v1/messages`, {
      method: 'POST',
      headers: {
        'content-type': 'application/json',
        'x-api-key': 'scripted',
        'anthropic-version': '2023-06-01',
        'x-scripted-fixture': FIXTURE,
      },
      body: JSON.stringify({
        model: 'claude-sonnet-5-5',
        max_tokens: 64,
        messages: [{ role: 'user', content: 'Credit it.' }],
      }),
    });
    expect(await response.text()).toContain(`"input":{"account":{"id":${DIGITS}},"note":"refund"}`);
  });

  it('is denied: nothing is sent, the ledger holds a refusal, and the model is told to send a string', async () => {
    // Prepare: the loopback receiver is an internal host, so the POST is not an external publish needing approval
    const { version } = await seedWorkflow(store, workflow());
    const run = await seedRun(store, version);
    const model = createAnthropicModel({
      apiKey: 'scripted',
      baseURL: server.url,
      defaultHeaders: { 'x-scripted-fixture': FIXTURE },
      maxRetries: 0,
    });
    const publish = { internalHosts: ['127.0.0.1'] };
    const deps = engineDeps(store, model, {
      actions: createActionCatalog({
        notes: store,
        httpBuiltins: httpBuiltins({ publish }),
        connectorAction: connectorActions({ publish }),
      }),
      egress: createEgress({ allowLoopbackPorts: [remote.port] }),
    });

    // Act
    await driveRun(deps, run.runId);

    // Assess: no request reached the receiver (before: {"account":{"id":12345678901234567000},...})
    expect(remote.received).toEqual([]);
    const ledger = await store.listLedger(run.runId);
    expect(ledger).toEqual([
      expect.objectContaining({ tool: 'credit_account', status: 'refused', attempts: 0 }),
    ]);
    expect(ledger[0]?.outcome).toEqual({
      content: expect.stringContaining(
        'Denied: input.account.id was read as 12345678901234567000: a number past 9007199254740991',
      ),
      isError: true,
    });
    const audit = await store.listAudit(run.runId);
    expect(audit.filter((entry) => entry.type === 'dispatch')).toEqual([]);
    expect(await store.getRun(run.runId)).toMatchObject({
      status: 'denied',
      degraded: { refused: [{ tool: 'credit_account', reason: expect.stringContaining(ADVICE) }] },
    });
    // The model got the denial (the second turn's expectations held) and answered.
    expect(server.failures).toEqual([]);
    expect(JSON.stringify(server.requests.at(-1)?.body)).toContain(ADVICE);
  });
});
