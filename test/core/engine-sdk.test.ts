/**
 * The turn engine through the real SDKs (@anthropic-ai/sdk and @anthropic-ai/bedrock-sdk) against the
 * scripted server, which answers both from the same fixtures.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { verifyAuditChain } from '../../shared/audit/index.ts';
import type { ContentBlock } from '../../shared/core/ports.ts';
import { transcriptProblems } from '../../shared/core/transcript.ts';
import {
  createAnthropicModel,
  createBedrockModel,
  type ScriptedFixture,
  startScriptedModelServer,
} from '../../shared/model/index.ts';
import { BEDROCK_MODEL, FAKE_AWS_CREDENTIALS, PROVIDERS, type Provider } from '../model/helpers.ts';
import { driveRun, engineDeps } from '../support/engine.ts';
import { minimalWorkflow, seedRun, seedWorkflow, testStore } from '../support/store.ts';

const store = testStore();
/** What an input-only denial asks of the model (shared/core/gate.ts). */
const INVITE = 'Correct the input and call again if the task still needs it.';
const call = (i: number) => ({
  type: 'tool_use' as const,
  id: `toolu_call_${i}`,
  name: 'notes_append',
  input: { name: 'log', line: `turn ${i}` },
});

const fixtures: ScriptedFixture[] = [
  {
    name: 'five-turns',
    turns: [
      ...[0, 1, 2, 3].map((i) => ({
        ...(i > 0
          ? {
              expect: {
                toolResults: [{ toolUseId: `toolu_call_${i - 1}`, contains: `${i} line(s)`, isError: false }],
              },
            }
          : {}),
        response: {
          content: [{ type: 'text' as const, text: `Step ${i}.` }, call(i)],
          usage: { input_tokens: 200, output_tokens: 40 },
        },
      })),
      {
        expect: { tools: ['current_time', 'notes_append', 'notes_put'] },
        text: 'All four lines are logged.',
      },
    ],
  },
  {
    // The first call's input does not match notes_append's schema (`line` must be a string): denied, the model is
    // invited to correct it, and the corrected call (its own id) is gated again and dispatched.
    name: 'corrects-input',
    turns: [
      {
        response: {
          content: [
            { type: 'text', text: 'Logging.' },
            { type: 'tool_use', id: 'toolu_bad', name: 'notes_append', input: { name: 'log', line: 42 } },
          ],
        },
      },
      {
        expect: {
          toolResults: [
            {
              toolUseId: 'toolu_bad',
              contains: "Denied: the input does not match the action's schema",
              isError: true,
            },
            { toolUseId: 'toolu_bad', contains: INVITE, isError: true },
          ],
        },
        response: {
          content: [
            { type: 'text', text: 'Fixing the line.' },
            { type: 'tool_use', id: 'toolu_good', name: 'notes_append', input: { name: 'log', line: '42' } },
          ],
        },
      },
      {
        expect: { toolResults: [{ toolUseId: 'toolu_good', contains: '1 line(s)', isError: false }] },
        text: 'Logged 42.',
      },
    ],
  },
  {
    name: 'cut-off',
    turns: [
      { response: { content: [{ type: 'text', text: 'This answer is cut' }], stop_reason: 'max_tokens' } },
    ],
  },
  {
    name: 'refuses',
    turns: [
      { response: { content: [{ type: 'text', text: 'I will not do that.' }], stop_reason: 'refusal' } },
    ],
  },
  {
    name: 'endless',
    turns: [0, 1, 2, 3, 4, 5].map((_i) => ({
      response: { content: [{ type: 'tool_use' as const, name: 'current_time', input: {} }] },
    })),
  },
  {
    // An id the Messages API would refuse back in a tool_result (^[a-zA-Z0-9_-]+$): the run fails naming it.
    name: 'odd-id',
    turns: [
      {
        response: {
          content: [{ type: 'tool_use' as const, id: 'toolu.1:x', name: 'current_time', input: {} }],
        },
      },
      { text: 'never asked' },
    ],
  },
  {
    name: 'costly',
    turns: [0, 1, 2, 3].map(() => ({
      response: {
        content: [{ type: 'tool_use' as const, name: 'current_time', input: {} }],
        usage: { input_tokens: 2000, output_tokens: 500 },
      },
    })),
  },
];

let server: Awaited<ReturnType<typeof startScriptedModelServer>>;
beforeAll(async () => {
  server = await startScriptedModelServer({ fixtures });
});
afterAll(async () => {
  await server.close();
});

/** The provider's port on the scripted server, selecting `fixture`. */
function portFor(provider: Provider, fixture: string) {
  const common = { baseURL: server.url, defaultHeaders: { 'x-scripted-fixture': fixture } };
  return provider === 'bedrock'
    ? createBedrockModel({ region: 'us-east-1', credentials: FAKE_AWS_CREDENTIALS, ...common })
    : createAnthropicModel({ apiKey: 'scripted', ...common });
}

async function runFixture(provider: Provider, fixture: string, overrides: Record<string, unknown> = {}) {
  // Same model, spelled as each provider takes it: the price (and so every budget) is the same.
  const model = provider === 'bedrock' ? { id: BEDROCK_MODEL, provider, maxTokens: 1024 } : undefined;
  const workflow = minimalWorkflow({ ...(model ? { model } : {}), ...overrides });
  const { version } = await seedWorkflow(store, workflow);
  const run = await seedRun(store, version);
  const outcomes = await driveRun(engineDeps(store, portFor(provider, fixture)), run.runId);
  const messages = await store.listMessages(run.runId);
  expect(
    transcriptProblems(messages.map((m) => ({ role: m.role, content: m.content as ContentBlock[] }))),
  ).toEqual([]);
  expect(
    verifyAuditChain(await store.listAudit(run.runId), { owner: run.owner, runId: run.runId }),
  ).toMatchObject({ ok: true });
  return { run: (await store.getRun(run.runId))!, outcomes, messages };
}

describe.each(PROVIDERS)('turn engine with the real %s SDK and the scripted server', (provider) => {
  it('runs a 5-turn tool loop that ends end_turn', async () => {
    const { run, outcomes } = await runFixture(provider, 'five-turns');
    expect(outcomes.map((o) => o.next)).toEqual(['continue', 'continue', 'continue', 'continue', 'done']);
    expect(run).toMatchObject({
      status: 'done',
      stopReason: 'end_turn',
      modelCalls: 5,
      result: { text: 'All four lines are logged.' },
    });
    expect(await store.getNoteLines(run.runId, 'log')).toEqual(['turn 0', 'turn 1', 'turn 2', 'turn 3']);
    expect(server.failures).toEqual([]);
  });

  it('denies a schema-invalid input inviting a corrected call, dispatches the correction, and ends done', async () => {
    const { run, outcomes, messages } = await runFixture(provider, 'corrects-input');
    // The scripted server checked each turn's tool results (the invitation, then the dispatch's answer).
    expect(server.failures).toEqual([]);
    expect(outcomes.map((o) => o.next)).toEqual(['continue', 'continue', 'done']);
    // Not degraded: the one refusal was of the input alone, and a later turn ran the action.
    expect(run).toMatchObject({
      status: 'done',
      stopReason: 'end_turn',
      modelCalls: 3,
      result: { text: 'Logged 42.' },
    });
    expect(run.degraded).toBeUndefined();
    const ledger = await store.listLedger(run.runId);
    expect(ledger.map((row) => [row.toolUseId, row.status])).toEqual([
      ['toolu_bad', 'refused'],
      ['toolu_good', 'completed'],
    ]);
    expect(ledger[0]?.outcome).toEqual({
      content: expect.stringMatching(/not executed\. Correct the input/),
      isError: true,
    });
    const audit = await store.listAudit(run.runId);
    expect(audit.filter((entry) => entry.type === 'denial').map((entry) => entry.data.toolUseId)).toEqual([
      'toolu_bad',
    ]);
    expect(await store.getNoteLines(run.runId, 'log')).toEqual(['42']);
    expect(messages.filter((m) => m.role === 'assistant')).toHaveLength(3);
  });

  it.each([
    ['cut-off', 'max_tokens'],
    ['refuses', 'refusal'],
  ])('records the stop reason of %s as %s', async (fixture, stopReason) => {
    const { run } = await runFixture(provider, fixture);
    expect(run).toMatchObject({ status: 'failed', stopReason });
  });

  it('fails the run naming a tool_use id the API would refuse back, before the call is dispatched', async () => {
    const { run, outcomes, messages } = await runFixture(provider, 'odd-id');
    expect(outcomes.map((o) => o.next)).toEqual(['failed']);
    expect(run).toMatchObject({
      status: 'failed',
      stopReason: 'error',
      modelCalls: 1,
      error: {
        name: 'ModelOutputInvalidError',
        message: `(the model's response was not kept: the tool call id "toolu.1:x" is not letters, digits, '_' and '-' only)`,
      },
    });
    expect(messages[1]).toMatchObject({ role: 'assistant', stopReason: 'output_unusable' });
    expect(await store.listLedger(run.runId)).toEqual([]);
    expect(server.failures).toEqual([]);
  });

  it('stops at max_turns', async () => {
    const { run } = await runFixture(provider, 'endless', { budget: { maxUsdPerRun: 1, maxTurns: 4 } });
    expect(run).toMatchObject({ status: 'failed', stopReason: 'max_turns', modelCalls: 4 });
  });

  it('stops with budget_exceeded before the call that would overshoot', async () => {
    // Each call costs 2000 × $2 + 500 × $10 per MTok = $0.009; a reservation is ~$0.0136 (1024 output tokens,
    // the request's bytes and the 1,024-token tool-use prompt at the dearest input rate).
    const { run, messages } = await runFixture(provider, 'costly', {
      budget: { maxUsdPerRun: 0.03, maxTurns: 10 },
    });
    expect(run).toMatchObject({ status: 'failed', stopReason: 'budget_exceeded' });
    expect(run.costUsd).toBeLessThanOrEqual(0.03);
    expect(run.modelCalls).toBe(messages.filter((m) => m.role === 'assistant').length);
    // Two calls fit ($0.018 spent); the third reservation ($0.018 + ~$0.0136) would overshoot, so it was never made.
    expect(run.modelCalls).toBe(2);
  });
});
