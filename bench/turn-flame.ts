/**
 * node --cpu-prof-free profiling of plain turns: warms up, then samples the CPU (V8 profiler) over RUNS runs of
 * the bench:turn loop fixture and writes the .cpuprofile to PROFILE_OUT; prints CPU ms per turn of the runtime
 * and of the floor (process.cpuUsage, this process only: DynamoDB Local's JVM is not counted).
 */
import { writeFileSync } from 'node:fs';
import { Session } from 'node:inspector/promises';
import Anthropic from '@anthropic-ai/sdk';
import { CreateTableCommand } from '@aws-sdk/client-dynamodb';
import { createAnthropicModel, startScriptedModelServer } from '../shared/model/index.ts';
import { DynamoStore } from '../shared/store/index.ts';
import { createTableInput } from '../shared/store/table.ts';
import { driveRun, engineDeps } from '../test/support/engine.ts';
import { minimalWorkflow, seedRun, seedWorkflow } from '../test/support/store.ts';
import { floorLoop } from './floor.ts';
import { benchStore, notesLoopFixture, printTable } from './support.ts';

const TURNS = 10;
const RUNS = Number(process.env.BENCH_RUNS ?? 10);
const LINE = Number(process.env.LINE ?? 0);
const fixture = notesLoopFixture({
  turns: TURNS,
  lineBytes: LINE,
  usage: { input_tokens: 500, output_tokens: 20 },
});
const server = await startScriptedModelServer({ fixtures: [fixture] });

/** Runs `step` under the V8 sampling profiler when `out` is set, writing the .cpuprofile there. */
async function profiled<T>(out: string | undefined, step: () => Promise<T>): Promise<T> {
  if (!out) return step();
  const session = new Session();
  session.connect();
  await session.post('Profiler.enable');
  await session.post('Profiler.setSamplingInterval', { interval: 200 });
  await session.post('Profiler.start');
  const result = await step();
  const { profile } = await session.post('Profiler.stop');
  writeFileSync(out, JSON.stringify(profile));
  session.disconnect();
  return result;
}
// BENCH_DYNAMODB_ENDPOINT: a DynamoDB Local started outside (a loaded machine may not start one within the
// bench's wait), a fresh table in it.
const outsideEndpoint = process.env.BENCH_DYNAMODB_ENDPOINT;
const bench = outsideEndpoint
  ? await (async (endpoint: string) => {
      const tableName = `wf-flame-${process.pid}`;
      const store = new DynamoStore({ endpoint, tableName });
      await store.ctx.doc.send(new CreateTableCommand(createTableInput(tableName)));
      return { store, stop: async () => {} };
    })(outsideEndpoint)
  : await benchStore();
const model = createAnthropicModel({
  apiKey: 'bench',
  baseURL: server.url,
  defaultHeaders: { 'x-scripted-fixture': 'loop' },
});
const client = new Anthropic({
  apiKey: 'bench',
  baseURL: server.url,
  maxRetries: 0,
  defaultHeaders: { 'x-scripted-fixture': 'loop' },
});
try {
  const { version } = await seedWorkflow(
    bench.store,
    minimalWorkflow({ budget: { maxUsdPerRun: 50, maxTurns: 20 } }),
  );
  for (let i = 0; i < 3; i++)
    await driveRun(engineDeps(bench.store, model), (await seedRun(bench.store, version)).runId);
  await floorLoop(bench.store, client, { runs: 3, turns: TURNS });
  const runIds = await Promise.all(
    Array.from({ length: RUNS }, async () => (await seedRun(bench.store, version)).runId),
  );
  // CPU is measured inside the profiled step: starting and stopping the profiler is not counted.
  const used = await profiled(process.env.PROFILE_OUT, async () => {
    const cpu = process.cpuUsage();
    for (const runId of runIds) await driveRun(engineDeps(bench.store, model), runId);
    return process.cpuUsage(cpu);
  });
  const runtimeCpu = (used.user + used.system) / 1000 / (RUNS * TURNS);
  const runtimeSys = used.system / 1000 / (RUNS * TURNS);
  const { floor, floorUsed } = await profiled(
    process.env.PROFILE_OUT && `${process.env.PROFILE_OUT}.floor`,
    async () => {
      const cpu = process.cpuUsage();
      const floor = await floorLoop(bench.store, client, { runs: RUNS, turns: TURNS });
      return { floor, floorUsed: process.cpuUsage(cpu) };
    },
  );
  const floorCpu = (floorUsed.user + floorUsed.system) / 1000 / floor.turns;
  const floorSys = floorUsed.system / 1000 / floor.turns;
  printTable(`CPU ms per turn in this process (${RUNS} runs × ${TURNS} turns)`, [
    { loop: 'runtime', 'CPU ms/turn': runtimeCpu.toFixed(2), 'of which system': runtimeSys.toFixed(2) },
    { loop: 'floor', 'CPU ms/turn': floorCpu.toFixed(2), 'of which system': floorSys.toFixed(2) },
  ]);
} finally {
  await bench.stop();
  await server.close();
}
