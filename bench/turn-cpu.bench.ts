/**
 * npm run bench:turn-cpu — what the Turn function's memory setting buys: CPU milliseconds per turn spent in
 * this process (the runtime, the SDKs and the in-process scripted model server, so an upper bound) and the
 * resident memory after many turns. Lambda gives a function CPU in proportion to its memory (a full vCPU at
 * 1,769 MB), so CPU ms ÷ (memory ÷ 1769) is the wall time a turn adds to the model's latency at that
 * setting. Prints a table; asserts nothing.
 */
import { createAnthropicModel, startScriptedModelServer } from '../shared/model/index.ts';
import { driveRun, engineDeps } from '../test/support/engine.ts';
import { minimalWorkflow, seedRun, seedWorkflow } from '../test/support/store.ts';
import { benchStore, notesLoopFixture, printTable } from './support.ts';

const TURNS = 10;
const RUNS = Number(process.env.BENCH_RUNS ?? 20);
const FULL_VCPU_MB = 1769;

// `turn i ` and 1,900 filler characters: within notes_append's 2,000-character line, so every call is dispatched
// (a longer line is refused by the gate, and the bench would measure refusals).
const fixture = notesLoopFixture({
  turns: TURNS,
  lineBytes: 1900,
  usage: { input_tokens: 5000, output_tokens: 200 },
});

const server = await startScriptedModelServer({ fixtures: [fixture] });
const bench = await benchStore();
const model = createAnthropicModel({
  apiKey: 'bench',
  baseURL: server.url,
  defaultHeaders: { 'x-scripted-fixture': 'loop' },
});
try {
  const { version } = await seedWorkflow(
    bench.store,
    minimalWorkflow({ budget: { maxUsdPerRun: 50, maxTurns: 20 } }),
  );
  // One container's dependencies for every run, as a warm Lambda container keeps them.
  const deps = engineDeps(bench.store, model);
  await driveRun(deps, (await seedRun(bench.store, version)).runId); // warm-up
  const cpu = process.cpuUsage();
  for (let i = 0; i < RUNS; i++) await driveRun(deps, (await seedRun(bench.store, version)).runId);
  const used = process.cpuUsage(cpu);
  const cpuPerTurn = (used.user + used.system) / 1000 / (RUNS * TURNS);
  const rssMb = process.memoryUsage().rss / 2 ** 20;
  printTable(`Turn CPU and memory (${RUNS} runs × ${TURNS} turns, node ${process.version})`, [
    { measure: 'CPU ms per turn (upper bound)', value: cpuPerTurn.toFixed(1) },
    { measure: 'resident memory after the runs (MB)', value: rssMb.toFixed(0) },
    ...[256, 512, 1024].map((mb) => ({
      measure: `wall ms a turn adds at ${mb} MB`,
      value: (cpuPerTurn / (mb / FULL_VCPU_MB)).toFixed(0),
    })),
  ]);
} finally {
  await bench.stop();
  await server.close();
}
