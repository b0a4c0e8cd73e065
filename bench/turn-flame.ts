/**
 * node --cpu-prof-free profiling of plain turns: warms up, then samples the CPU (V8 profiler) over RUNS runs of
 * the bench:turn loop fixture and writes the .cpuprofile to PROFILE_OUT; prints CPU ms per turn of the runtime
 * and of the floor (process.cpuUsage, this process only: DynamoDB Local's JVM is not counted).
 */
import { exec } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { Session } from 'node:inspector/promises';
import { promisify } from 'node:util';
import Anthropic from '@anthropic-ai/sdk';
import { CreateTableCommand } from '@aws-sdk/client-dynamodb';
import { createAnthropicModel, startScriptedModelServer } from '../shared/model/index.ts';
import { DynamoStore } from '../shared/store/index.ts';
import { createTableInput } from '../shared/store/table.ts';
import { driveRun, engineDeps } from '../test/support/engine.ts';
import { minimalWorkflow, seedRun, seedWorkflow } from '../test/support/store.ts';
import { floorLoop } from './floor.ts';
import { benchStore, printTable } from './support.ts';

/**
 * Under `valgrind --tool=callgrind --instr-atstart=no` with CALLGRIND=1: instruments only the measured loops
 * and dumps one profile each (`-d runtime`, `-d floor`): instruction counts, which load does not change.
 */
const callgrind = async (args: string) => {
  if (process.env.CALLGRIND) await promisify(exec)(`callgrind_control ${args} ${process.pid}`);
};
const TURNS = 10;
const RUNS = Number(process.env.BENCH_RUNS ?? 10);
const LINE = Number(process.env.LINE ?? 0);
const fixture = {
  name: 'loop',
  turns: [
    ...Array.from({ length: TURNS - 1 }, (_, i) => ({
      response: {
        content: [
          {
            type: 'tool_use' as const,
            name: 'notes_append',
            input: { name: 'log', line: `turn ${i} ${'x'.repeat(LINE)}` },
          },
        ],
        usage: { input_tokens: 500, output_tokens: 20 },
      },
    })),
    { text: 'done' },
  ],
};
const server = await startScriptedModelServer({ fixtures: [fixture] });
// BENCH_DYNAMODB_ENDPOINT: a DynamoDB Local started outside (under valgrind this process is too slow to wait
// for one of its own), a fresh table in it.
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
  const session = new Session();
  if (process.env.PROFILE_OUT) {
    session.connect();
    await session.post('Profiler.enable');
    await session.post('Profiler.setSamplingInterval', { interval: 200 });
    await session.post('Profiler.start');
  }
  await callgrind('-i on');
  let cpu = process.cpuUsage();
  for (const runId of runIds) await driveRun(engineDeps(bench.store, model), runId);
  let used = process.cpuUsage(cpu);
  await callgrind('-d runtime');
  const runtimeCpu = (used.user + used.system) / 1000 / (RUNS * TURNS);
  const runtimeSys = used.system / 1000 / (RUNS * TURNS);
  if (process.env.PROFILE_OUT) {
    const { profile } = await session.post('Profiler.stop');
    writeFileSync(process.env.PROFILE_OUT, JSON.stringify(profile));
    session.disconnect();
  }
  if (process.env.PROFILE_OUT) {
    session.connect();
    await session.post('Profiler.enable');
    await session.post('Profiler.setSamplingInterval', { interval: 200 });
    await session.post('Profiler.start');
  }
  cpu = process.cpuUsage();
  const floor = await floorLoop(bench.store, client, { runs: RUNS, turns: TURNS });
  used = process.cpuUsage(cpu);
  await callgrind('-d floor');
  await callgrind('-i off');
  if (process.env.PROFILE_OUT) {
    const { profile } = await session.post('Profiler.stop');
    writeFileSync(`${process.env.PROFILE_OUT}.floor`, JSON.stringify(profile));
    session.disconnect();
  }
  const floorCpu = (used.user + used.system) / 1000 / floor.turns;
  const floorSys = used.system / 1000 / floor.turns;
  printTable(`CPU ms per turn in this process (${RUNS} runs × ${TURNS} turns)`, [
    { loop: 'runtime', 'CPU ms/turn': runtimeCpu.toFixed(2), 'of which system': runtimeSys.toFixed(2) },
    { loop: 'floor', 'CPU ms/turn': floorCpu.toFixed(2), 'of which system': floorSys.toFixed(2) },
  ]);
} finally {
  await bench.stop();
  await server.close();
}
