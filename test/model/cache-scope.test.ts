/**
 * The prompt cache is the deployment's (one API key), so no cached prefix may be shared between owners: a
 * cache read on owner B's first call would tell B that owner A ran the same tools and system prompt within
 * the last 5 minutes. Runs go through the engine, the real SDK and the scripted server's cache accounting.
 */
import { afterAll, beforeAll, expect, it } from 'vitest';
import {
  createAnthropicModel,
  type ScriptedFixture,
  startScriptedModelServer,
} from '../../shared/model/index.ts';
import { driveRun, engineDeps } from '../support/engine.ts';
import {
  FixedClock,
  minimalWorkflow,
  seedRun,
  seedWorkflow,
  testStore,
  uniqueOwner,
} from '../support/store.ts';

const store = testStore();
// Long enough (about 1,300 tokens) to pass Sonnet's minimum cacheable length, so the cache engages.
const SYSTEM = 'You keep the team log. Record each step with notes_append and check the time. '.repeat(65);
const fixture: ScriptedFixture = {
  turns: [
    { response: { content: [{ type: 'tool_use', name: 'current_time', input: {} }] } },
    { text: 'Done.' },
  ],
};

let server: Awaited<ReturnType<typeof startScriptedModelServer>>;
beforeAll(async () => {
  server = await startScriptedModelServer({ fixtures: fixture });
});
afterAll(async () => {
  await server?.close();
});

const clock = new FixedClock();

/** `owner`'s copy of the workflow: the same definition (tools and system prompt) for every owner. */
const workflowOf = async (owner: string) =>
  (await seedWorkflow(store, minimalWorkflow({ prompt: { system: SYSTEM } }), { owner, clock })).version;

/** One run of `version`: the cache reads of each of its model calls. */
async function runOf(version: Awaited<ReturnType<typeof workflowOf>>): Promise<number[]> {
  const model = createAnthropicModel({ apiKey: 'test', baseURL: server.url });
  const from = server.requests.length;
  const run = await seedRun(store, version, { clock, input: { note: 'same input' } });
  await driveRun(engineDeps(store, model, { clock }), run.runId);
  return server.requests.slice(from).map((request) => request.usage?.cache_read_input_tokens ?? -1);
}

it("reads nothing of another owner's cached prompt, while an owner's next run reads its own", async () => {
  // Prepare
  const [alice, bob] = [await workflowOf(uniqueOwner()), await workflowOf(uniqueOwner())];
  const aliceFirst = await runOf(alice);

  // Act: the same definition (tools and system prompt), bob's then alice's again, within the cache's 5 minutes.
  const bobFirst = await runOf(bob);
  const aliceAgain = await runOf(alice);

  // Assess
  expect(server.failures).toEqual([]);
  expect(aliceFirst).toHaveLength(2);
  expect(aliceFirst[0]).toBe(0);
  expect(bobFirst[0], "bob's first call read alice's cached prefix").toBe(0);
  expect(bobFirst[1]).toBeGreaterThan(1000); // bob's own second call reads his own first one
  expect(aliceAgain[0], "alice's next run reads her own tools and system prompt").toBeGreaterThan(1000);
});
