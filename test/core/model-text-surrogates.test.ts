/**
 * A model answer whose JSON carries a lone UTF-16 surrogate (an escape such as `"\ud83d"` with no low half). It
 * cannot be sealed into the audit chain (RFC 8785), has no UTF-8 form for DynamoDB, and the Messages API
 * refuses it when it is sent back. Before, the turn failed with CanonicalJsonError on every retry, each retry a
 * paid model call. Now the turn replaces it with U+FFFD in the text and the tool input it stores, and the run
 * goes on. Through the real Anthropic SDK against the scripted server (which refuses a lone surrogate as the
 * API does), on DynamoDB Local.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { verifyAuditChain } from '../../shared/audit/index.ts';
import { createAnthropicModel, startScriptedModelServer } from '../../shared/model/index.ts';
import { driveRun, engineDeps } from '../support/engine.ts';
import { minimalWorkflow, seedRun, seedWorkflow, testStore } from '../support/store.ts';

const store = testStore();
let server: Awaited<ReturnType<typeof startScriptedModelServer>>;
beforeAll(async () => {
  server = await startScriptedModelServer({
    fixtures: [
      {
        name: 'lone-surrogate',
        turns: [
          {
            response: {
              content: [
                { type: 'text', text: 'Noting \ud83d.' },
                { type: 'tool_use', name: 'notes_put', input: { name: 'n', value: 'v\ud83d' } },
              ],
            },
          },
          {
            expect: { toolResults: [{ toolName: 'notes_put', contains: "Note 'n' set (2 characters)" }] },
            text: 'Done.',
          },
        ],
      },
    ],
  });
});
afterAll(() => server.close());

describe('a model answer carrying a lone surrogate', () => {
  it('is stored and sent back with U+FFFD in its place, and the run ends done', async () => {
    // Prepare
    const { version } = await seedWorkflow(store, minimalWorkflow());
    const run = await seedRun(store, version);
    const model = createAnthropicModel({
      apiKey: 'scripted',
      baseURL: server.url,
      defaultHeaders: { 'x-scripted-fixture': 'lone-surrogate' },
      maxRetries: 0,
    });

    // Act
    const outcomes = await driveRun(engineDeps(store, model), run.runId);

    // Assess
    expect(server.failures).toEqual([]);
    expect(outcomes.map((outcome) => outcome.next)).toEqual(['continue', 'done']);
    const assistant = (await store.listMessages(run.runId)).find((message) => message.role === 'assistant');
    expect(assistant?.content).toEqual([
      { type: 'text', text: 'Noting \ufffd.' },
      expect.objectContaining({
        type: 'tool_use',
        name: 'notes_put',
        input: { name: 'n', value: 'v\ufffd' },
      }),
    ]);
    expect(
      verifyAuditChain(await store.listAudit(run.runId), { owner: run.owner, runId: run.runId }),
    ).toMatchObject({ ok: true });
  });
});
