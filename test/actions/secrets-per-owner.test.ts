/**
 * One warm Turn container serves two owners with the same secrets port (as `ownerSecrets()` does on AWS).
 * Alice's run resolves her credential; then bob's run, in the same container, fetches a page that carries
 * her value and sends a request with that string in its URL. Neither is bob's credential: his fetched text
 * comes back as fetched (no `[REDACTED]` telling him it is someone's secret) and his request is sent (no
 * refusal confirming a guess). Alice's own run still has her value redacted.
 */
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ContentBlock, ModelPort } from '../../shared/core/ports.ts';
import { runTurn } from '../../shared/core/turn.ts';
import { fileSecrets } from '../../shared/credentials/index.ts';
import { createEgress } from '../../shared/egress/index.ts';
import { engineDeps } from '../../shared/runtime/engine-deps.ts';
import { ScriptedModel, text, toolUse } from '../support/engine.ts';
import { FixedClock, randomIds, seedRun, seedWorkflow, testStore } from '../support/store.ts';
import { type FakeRemote, fakeRemote } from './support.ts';

const ALICE_SECRET = 'alice-only-4f1c9e2b+Tq/Wm=Zr58';

const workflowFile = (owner: string, credRefs: string) => `
name: per-owner-${owner}
model: { id: claude-sonnet-5-5 }
prompt: { system: Read the page. }
allowedActions: [http_request, fetch_url]
approvals: { approvers: [boss@example.com] }
trigger: { type: on_demand }
budget: { maxUsdPerRun: 1, maxTurns: 4 }
${credRefs}
`;

const store = testStore();
let remote: FakeRemote;
beforeAll(async () => {
  // A page that happens to carry alice's value (bob may have put it there; it is his page either way).
  remote = await fakeRemote(() => ({ body: `page text ${ALICE_SECRET} end` }));
});
afterAll(() => remote.close());

const results = (content: ContentBlock[]) =>
  Object.fromEntries(
    content.flatMap((block) => (block.type === 'tool_result' ? [[block.tool_use_id, block.content]] : [])),
  );

describe('a secrets port shared by two owners', () => {
  it("neither redacts nor refuses alice's value in bob's run, and still redacts it in alice's", async () => {
    // Prepare: one container, one secrets port, one set of engine dependencies for both runs.
    const path = join(mkdtempSync(join(tmpdir(), 'wf-per-owner-')), 'secrets.json');
    writeFileSync(path, JSON.stringify({ 'wf/owner-alice/token': ALICE_SECRET }));
    const clock = new FixedClock();
    const aliceModel = new ScriptedModel([
      { content: [text(`Alice's answer mentions ${ALICE_SECRET}.`)], stopReason: 'end_turn' },
    ]);
    const bobModel = new ScriptedModel([
      {
        content: [
          toolUse('f1', 'fetch_url', { url: `${remote.origin}/page` }),
          toolUse('h1', 'http_request', { url: `${remote.origin}/guess?g=${ALICE_SECRET}` }),
        ],
        stopReason: 'tool_use',
      },
      { content: [text('Done.')], stopReason: 'end_turn' },
    ]);
    // One model port for the container; each run's script is picked by the workflow asking.
    const model: ModelPort = {
      call: (request) => (request.workflow === 'per-owner-alice' ? aliceModel : bobModel).call(request),
    };
    const deps = engineDeps({
      store,
      model,
      egress: createEgress({ allowLoopbackPorts: [remote.port] }),
      secrets: fileSecrets(path),
      clock,
      ids: randomIds,
    });
    const alice = await seedWorkflow(
      store,
      workflowFile('alice', 'credRefs:\n  token: { secret: wf/owner-alice/token }'),
      { clock, owner: 'owner-alice' },
    );
    const bob = await seedWorkflow(store, workflowFile('bob', ''), { clock, owner: 'owner-bob' });
    const aliceRun = await seedRun(store, alice.version, { clock });
    const bobRun = await seedRun(store, bob.version, { clock });

    // Act
    const aliceDone = await runTurn(deps, { runId: aliceRun.runId, turn: 0, segmentStartTurn: 0 });
    const bobTools = await runTurn(deps, { runId: bobRun.runId, turn: 0, segmentStartTurn: 0 });
    const bobDone = await runTurn(deps, { runId: bobRun.runId, turn: 1, segmentStartTurn: 0 });

    // Assess: alice's value is redacted in alice's run
    expect([aliceDone.next, bobTools.next, bobDone.next]).toEqual(['done', 'continue', 'done']);
    expect((await store.getRun(aliceRun.runId))?.result?.text).toBe("Alice's answer mentions [REDACTED].");
    // Assess: bob's fetched text is his, unchanged, and his request went out
    const bobResults = results(bobModel.requests[1]!.messages.at(-1)!.content);
    expect(bobResults.f1).toContain(`page text ${ALICE_SECRET} end`);
    expect(bobResults.h1).not.toMatch(/^Refused/);
    expect(bobResults.h1).toContain(`page text ${ALICE_SECRET} end`);
    expect(remote.received.map((request) => decodeURIComponent(request.path))).toEqual([
      '/page',
      `/guess?g=${ALICE_SECRET}`,
    ]);
  });
});
