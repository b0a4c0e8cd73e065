/**
 * npm run bench:cache — the share of input tokens read from the prompt cache on turns ≥ 2, as the scripted
 * server accounts it (shared/model/scripted-cache.ts: Anthropic's breakpoint, prefix-order, minimum-length and
 * 5-minute rules; tokens estimated at 4 characters each). Measured on the worked example (the local stack,
 * `npm start`'s run) and on 10-turn tool loops through the engine and the real SDK. Prints tables; asserts nothing.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Usage } from '../shared/core/ports.ts';
import { runWorkedExample } from '../shared/demo/worked-example.ts';
import { createAnthropicModel, startScriptedModelServer } from '../shared/model/index.ts';
import { driveRun, engineDeps } from '../test/support/engine.ts';
import { minimalWorkflow, seedRun, seedWorkflow } from '../test/support/store.ts';
import { benchStore, printTable } from './support.ts';

const TURNS = 10;

/** One row per scenario: tokens on turns ≥ 2 and the share read from the cache. */
function shareRow(scenario: string, calls: Usage[]) {
  const later = calls.slice(1);
  const sum = (pick: (usage: Usage) => number) => later.reduce((total, usage) => total + pick(usage), 0);
  const read = sum((u) => u.cacheReadInputTokens);
  const written = sum((u) => u.cacheCreationInputTokens);
  const uncached = sum((u) => u.inputTokens);
  const all = read + written + uncached;
  return {
    scenario,
    'model calls': calls.length,
    'turn 1 input': calls[0]
      ? calls[0].inputTokens + calls[0].cacheCreationInputTokens + calls[0].cacheReadInputTokens
      : 0,
    'turns ≥2 input': all,
    'cache read': read,
    'cache write': written,
    uncached,
    'read share': all === 0 ? '-' : `${((100 * read) / all).toFixed(1)}%`,
  };
}

const perTurn = (calls: Usage[]) =>
  calls.map((usage, i) => ({
    turn: i + 1,
    uncached: usage.inputTokens,
    'cache write': usage.cacheCreationInputTokens,
    'cache read': usage.cacheReadInputTokens,
  }));

// The worked example, unattended, on free ports.
const dataDir = await mkdtemp(join(tmpdir(), 'wf-bench-cache-'));
const example = await runWorkedExample({
  autoApprove: true,
  feedPort: 0,
  sitePort: 0,
  dataDir,
  print: () => {},
});
await rm(dataDir, { recursive: true, force: true });
if (!example.ok) throw new Error('the worked example did not finish');

// 10-turn loops: each turn appends one line to a note, the last answers.
const loop = {
  name: 'loop',
  turns: [
    ...Array.from({ length: TURNS - 1 }, (_, i) => ({
      response: {
        content: [
          { type: 'text' as const, text: `Logging step ${i + 1}.` },
          {
            type: 'tool_use' as const,
            name: 'notes_append',
            input: { name: 'log', line: `step ${i + 1} done` },
          },
        ],
      },
    })),
    { text: 'All steps are logged.' },
  ],
};
const server = await startScriptedModelServer({ fixtures: loop });
const bench = await benchStore();
const model = createAnthropicModel({ apiKey: 'bench', baseURL: server.url });
// A production-size operating manual (about 1,600 tokens): what a team's agent prompt typically carries.
const MANUAL = Array.from(
  { length: 40 },
  (_, i) =>
    `Rule ${i + 1}: log every step with notes_append, one line per step, naming what changed and why.`,
).join('\n');

async function loopCalls(system: string): Promise<Usage[]> {
  const { version } = await seedWorkflow(
    bench.store,
    minimalWorkflow({ prompt: { system }, budget: { maxUsdPerRun: 5, maxTurns: 20 } }),
  );
  const from = server.requests.length;
  await driveRun(engineDeps(bench.store, model), (await seedRun(bench.store, version)).runId);
  return server.requests.slice(from).map(({ usage }) => ({
    inputTokens: usage?.input_tokens ?? 0,
    outputTokens: usage?.output_tokens ?? 0,
    cacheCreationInputTokens: usage?.cache_creation_input_tokens ?? 0,
    cacheReadInputTokens: usage?.cache_read_input_tokens ?? 0,
  }));
}

try {
  const small = await loopCalls('You keep the team log.');
  const large = await loopCalls(MANUAL);
  printTable('Worked example (morning-news), per model call', perTurn(example.modelCalls));
  printTable('10-turn loop, production-size system prompt, per model call', perTurn(large));
  printTable('Prompt-cache share of input tokens on turns ≥ 2 (goal ≥ 80%)', [
    shareRow('worked example (morning-news)', example.modelCalls),
    shareRow('10-turn loop, one-line system prompt', small),
    shareRow('10-turn loop, production-size system prompt', large),
  ]);
  if (server.failures.length > 0) console.log('scripted-model failures:', server.failures);
} finally {
  await server.close();
  await bench.stop();
}
