/**
 * What the runtime sends before its prompt-cache breakpoints must be stable: nothing time-varying or per-call
 * (a timestamp, a run id, a nonce, a turn counter) may sit before the last breakpoint, or the next turn
 * misses the cache. Runs go through the engine, the real SDK and the scripted server, on a clock that moves
 * at every read and random ids.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  createAnthropicModel,
  type ScriptedFixture,
  startScriptedModelServer,
} from '../../shared/model/index.ts';
import { type CacheableRequest, type PrefixBlock, prefixBlocks } from '../../shared/model/scripted-prefix.ts';
import { driveRun, engineDeps } from '../support/engine.ts';
import { FixedClock, minimalWorkflow, seedRun, seedWorkflow, testStore } from '../support/store.ts';

/** A clock one second later at every read: whatever the runtime derives from time differs per call. */
class TickingClock extends FixedClock {
  override nowMs(): number {
    this.ms += 1000;
    return this.ms;
  }
}

const store = testStore();
// Long enough (about 1,300 tokens) to pass Sonnet's minimum cacheable length, so the cache engages.
const SYSTEM = 'You keep the team log. Record each step with notes_append and check the time. '.repeat(65);
const TURNS = 4;
const fixture: ScriptedFixture = {
  turns: [
    ...Array.from({ length: TURNS }, (_, i) => ({
      response: {
        content: [
          { type: 'text' as const, text: `Step ${i}.` },
          { type: 'tool_use' as const, name: 'current_time', input: {} },
          { type: 'tool_use' as const, name: 'notes_append', input: { name: 'log', line: `step ${i}` } },
        ],
      },
    })),
    { text: 'Logged.' },
  ],
};

let server: Awaited<ReturnType<typeof startScriptedModelServer>>;
beforeAll(async () => {
  server = await startScriptedModelServer({ fixtures: fixture });
});
afterAll(async () => {
  await server?.close();
});

/** Runs one workflow twice and returns each run's requests as the cache sees them. */
let hour = 0;
async function twoRuns(): Promise<PrefixBlock[][][]> {
  // Each call starts an hour later, so no call finds another call's transcripts in the cache.
  const clock = new TickingClock(new Date(Date.UTC(2026, 10, 30, 7 + hour++)).toISOString());
  const model = createAnthropicModel({ apiKey: 'test', baseURL: server.url });
  const { version } = await seedWorkflow(store, minimalWorkflow({ prompt: { system: SYSTEM } }), { clock });
  const runs: PrefixBlock[][][] = [];
  for (const _ of [1, 2]) {
    const from = server.requests.length;
    const run = await seedRun(store, version, { clock, input: { note: 'same input' } });
    await driveRun(engineDeps(store, model, { clock }), run.runId);
    runs.push(server.requests.slice(from).map((request) => prefixBlocks(request.body as CacheableRequest)));
  }
  return runs;
}

const lastBreakpoint = (blocks: PrefixBlock[]) => blocks.findLastIndex((block) => block.breakpoints > 0);
const segmentEnd = (blocks: PrefixBlock[], segment: PrefixBlock['segment']) =>
  blocks.findLastIndex((block) => block.segment === segment);

describe('prompt-cache prefix stability', () => {
  it('sends each turn the previous request unchanged up to its last breakpoint', async () => {
    // Act
    const runs = await twoRuns();

    // Assess
    expect(server.failures).toEqual([]);
    for (const requests of runs) {
      expect(requests).toHaveLength(TURNS + 1);
      for (let k = 1; k < requests.length; k++) {
        const [before, after] = [requests[k - 1]!, requests[k]!];
        const end = lastBreakpoint(before);
        expect(end).toBeGreaterThan(segmentEnd(before, 'system'));
        // The prefix key hashes every block up to `end`: equal keys mean byte-equal prefixes.
        expect(after[end]?.key, `request ${k} changed the prefix cached by request ${k - 1}`).toBe(
          before[end]?.key,
        );
      }
    }
  });

  it('sends the same tools and system prompt in every call of every run', async () => {
    // Act
    const runs = await twoRuns();

    // Assess: one key for the tools+system prefix across runs, clocks and run ids.
    const keys = new Set(runs.flat().map((blocks) => blocks[segmentEnd(blocks, 'system')]?.key));
    expect(keys.size).toBe(1);
  });

  it('reads on every later turn what the turn before it wrote', async () => {
    // Prepare
    const from = server.requests.length;

    // Act
    await twoRuns();

    // Assess: turn k reads the whole prefix up to turn k-1's last breakpoint.
    const served = server.requests.slice(from);
    const second = served.slice(TURNS + 1);
    for (let k = 1; k < second.length; k++) {
      const before = prefixBlocks(second[k - 1]!.body as CacheableRequest);
      const upTo = before.slice(0, lastBreakpoint(before) + 1).reduce((sum, block) => sum + block.tokens, 0);
      expect(second[k]?.usage?.cache_read_input_tokens).toBe(upTo);
    }
  });
});
