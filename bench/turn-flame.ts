/**
 * node --cpu-prof-free profiling of plain turns: warms up, then samples the CPU (V8 profiler) over RUNS runs of
 * the bench:turn loop fixture and writes the .cpuprofile to PROFILE_OUT; prints CPU ms per turn of the runtime
 * and of the floor (process.cpuUsage, this process only: DynamoDB Local's JVM is not counted), then where a
 * plain turn's CPU goes: its DynamoDB requests and model calls sent again without the runtime
 * (bench/turn-replay.ts), the rest being the runtime's own code; and the floor's, split the same way.
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
import { bareLoop, floorLoop } from './floor.ts';
import { benchStore, notesLoopFixture, printTable } from './support.ts';
import { replayModelCalls, replayRequests, requestTape } from './turn-replay.ts';

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
  const tape = requestTape(bench.store, model);
  let seeded: Awaited<ReturnType<typeof seedWorkflow>> | undefined;
  const workflowSeed = await tape.record(async () => {
    seeded = await seedWorkflow(bench.store, minimalWorkflow({ budget: { maxUsdPerRun: 50, maxTurns: 20 } }));
  });
  const { version } = seeded!;
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

  // Where it goes (bench/turn-replay.ts), run by run and interleaved: a run timed, an identical run recorded
  // (not timed: recording copies every request), its requests and model calls sent again, the floor, the bare SDK.
  const parts = { runtime: 0, requests: 0, calls: 0, floor: 0, bare: 0, floorTurns: 0, bareTurns: 0 };
  const cpuMs = (since: NodeJS.CpuUsage) => {
    const used = process.cpuUsage(since);
    return (used.user + used.system) / 1000;
  };
  // With --expose-gc, the heap is collected before each measured step (and its sweeping threads given time to
  // finish), so none pays for the garbage of the one before.
  const collect = async () => {
    (globalThis as { gc?: () => void }).gc?.();
    await new Promise((resolve) => setTimeout(resolve, 25));
  };
  for (let i = 0; i < RUNS; i++) {
    const timed = (await seedRun(bench.store, version)).runId;
    await collect();
    let cpu = process.cpuUsage();
    await driveRun(engineDeps(bench.store, model), timed);
    parts.runtime += cpuMs(cpu);
    let recordedRun = '';
    const seed = await tape.record(async () => {
      recordedRun = (await seedRun(bench.store, version)).runId;
    });
    const { sent, asked } = await tape.record(() =>
      driveRun(engineDeps(bench.store, tape.model), recordedRun),
    );
    parts.requests += await replayRequests(bench.store, [...workflowSeed.sent, ...seed.sent], sent, collect);
    await collect();
    parts.calls += await replayModelCalls(model, asked);
    await collect();
    cpu = process.cpuUsage();
    parts.floorTurns += (await floorLoop(bench.store, client, { runs: 1, turns: TURNS })).turns;
    parts.floor += cpuMs(cpu);
    await collect();
    cpu = process.cpuUsage();
    parts.bareTurns += await bareLoop(client, TURNS);
    parts.bare += cpuMs(cpu);
  }
  const turns = RUNS * TURNS;
  const perTurn = (ms: number, count = turns) => (ms / count).toFixed(2);
  printTable(
    `Where a plain turn's CPU goes, ms per turn in this process (${RUNS} runs × ${TURNS} turns each)`,
    [
      { part: 'runtime: a turn, all of it', 'CPU ms/turn': perTurn(parts.runtime) },
      {
        part: '  its DynamoDB requests sent again as they were (SDK, HTTP, JSON; no runtime code)',
        'CPU ms/turn': perTurn(parts.requests),
      },
      {
        part: '  its model calls sent again through the same port (Anthropic SDK, streamed; the scripted server)',
        'CPU ms/turn': perTurn(parts.calls),
      },
      {
        part: '  the rest: the runtime’s own code (gates, ledger, budget, audit sealing, validation, items)',
        'CPU ms/turn': perTurn(parts.runtime - parts.requests - parts.calls),
      },
      { part: 'floor: a turn, all of it', 'CPU ms/turn': perTurn(parts.floor, parts.floorTurns) },
      { part: '  its model calls (the bare SDK loop)', 'CPU ms/turn': perTurn(parts.bare, parts.bareTurns) },
      {
        part: '  its GetItem and TransactWriteItems',
        'CPU ms/turn': (parts.floor / parts.floorTurns - parts.bare / parts.bareTurns).toFixed(2),
      },
    ],
  );
} finally {
  await bench.stop();
  await server.close();
}
