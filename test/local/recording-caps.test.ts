/**
 * The recording proxy keeps a bounded number of conversations per owner: one owner's many recorded runs must
 * not make another owner's recording disappear (a 404 on `GET /local/runs/{id}/recording`). Real model
 * adapter (with the local stack's recording headers), real proxy, the scripted server as the upstream API.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ModelRequest } from '../../shared/core/ports.ts';
import { startScriptedModelServer } from '../../shared/model/index.ts';
import { type RecordingProxy, startRecordingProxy } from '../../shared/model/recording-proxy.ts';
import { modelFor } from '../../shared/runtime/model-router.ts';

let upstream: Awaited<ReturnType<typeof startScriptedModelServer>>;
let proxy: RecordingProxy;
beforeAll(async () => {
  upstream = await startScriptedModelServer({ fixtures: { turns: [{ text: 'Noted.' }] } });
  proxy = await startRecordingProxy({ upstream: upstream.url });
});
afterAll(async () => {
  await proxy?.close();
  await upstream?.close();
});

/** Turn 0 of run `runId` of `owner`, through the local stack's recording model adapter, via `proxyUrl`. */
async function turnZero(owner: string, runId: string, proxyUrl = proxy.url) {
  const model = modelFor({ kind: 'anthropic', apiKey: 'test', baseURL: proxyUrl, recording: true });
  const request: ModelRequest = {
    model: 'claude-sonnet-5-5',
    system: `${owner}'s triage prompt`,
    messages: [{ role: 'user', content: [{ type: 'text', text: `${owner} input` }] }],
    tools: [],
    maxTokens: 100,
    thinking: 'off',
    workflow: 'triage',
    runId,
    owner,
  };
  await model.call(request);
}

describe('Function: startRecordingProxy', () => {
  it("keeps alice's recording however many runs bob records, and drops bob's own oldest", async () => {
    // Prepare
    await turnZero('alice', 'run_alice0001');

    // Act: one more run of bob's than the proxy used to keep in all.
    for (let i = 0; i <= 100; i++) await turnZero('bob', `run_bob${String(i).padStart(4, '0')}`);

    // Assess
    expect(proxy.fixtureOfRun('run_alice0001')?.turns[0]?.expect?.recorded?.system).toBe(
      "alice's triage prompt",
    );
    expect(proxy.fixtureOfRun('run_bob0000')).toBeUndefined();
    expect(proxy.fixtureOfRun('run_bob0001')).toBeDefined();
    expect(proxy.fixtureOfRun('run_bob0100')).toBeDefined();
    for (const request of upstream.requests)
      expect(Object.keys(request.headers)).not.toContain('x-recording-owner');
  });

  it('drops the oldest recording of any owner once it keeps `maxRuns` in all', async () => {
    // Prepare: a proxy that keeps 2 runs per owner and 3 in all (the defaults are 100 and 500).
    const small = await startRecordingProxy({ upstream: upstream.url, maxRunsPerOwner: 2, maxRuns: 3 });
    try {
      // Act: three owners, one run each, then a fourth owner's run.
      for (const owner of ['ann', 'ben', 'cat', 'dan']) await turnZero(owner, `run_${owner}0001`, small.url);

      // Assess: ann's, the oldest of all, went; each of the others is still kept.
      expect(small.fixtureOfRun('run_ann0001')).toBeUndefined();
      for (const owner of ['ben', 'cat', 'dan']) expect(small.fixtureOfRun(`run_${owner}0001`)).toBeDefined();
    } finally {
      await small.close();
    }
  });
});
