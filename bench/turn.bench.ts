/**
 * npm run bench:turn — what one turn costs the runtime, with a zero-latency scripted model:
 * DynamoDB operations per turn (plain and gated), runtime overhead per turn, and the same conversation on
 * the bare SDK with no persistence, side by side. Prints tables; asserts nothing.
 */
import Anthropic from '@anthropic-ai/sdk';
import { decideApproval } from '../shared/core/approval-ops.ts';
import { runTurn } from '../shared/core/turn.ts';
import { createAnthropicModel, startScriptedModelServer } from '../shared/model/index.ts';
import { driveRun, engineDeps } from '../test/support/engine.ts';
import { FixedClock, minimalWorkflow, seedRun, seedWorkflow } from '../test/support/store.ts';
import { benchStore, printTable } from './support.ts';

const TURNS = 10;
const RUNS = Number(process.env.BENCH_RUNS ?? 10);

const loopFixture = {
  name: 'loop',
  turns: [
    ...Array.from({ length: TURNS - 1 }, (_, i) => ({
      response: {
        content: [
          { type: 'tool_use' as const, name: 'notes_append', input: { name: 'log', line: `turn ${i}` } },
        ],
        usage: { input_tokens: 500, output_tokens: 20 },
      },
    })),
    { text: 'done' },
  ],
};
const gatedFixture = {
  name: 'gated',
  turns: [
    {
      response: {
        content: [{ type: 'tool_use' as const, name: 'notes_append', input: { name: 'log', line: 'gated' } }],
      },
    },
    { text: 'done' },
  ],
};

const server = await startScriptedModelServer({ fixtures: [loopFixture, gatedFixture] });
const bench = await benchStore();
const { store, counts } = bench;
const model = (fixture: string) =>
  createAnthropicModel({
    apiKey: 'bench',
    baseURL: server.url,
    defaultHeaders: { 'x-scripted-fixture': fixture },
  });

try {
  // Warm up both paths once.
  const warm = await seedWorkflow(store, minimalWorkflow());
  await driveRun(engineDeps(store, model('loop')), (await seedRun(store, warm.version)).runId);

  // Runtime: plain turns.
  const { version } = await seedWorkflow(
    store,
    minimalWorkflow({ budget: { maxUsdPerRun: 5, maxTurns: 20 } }),
  );
  bench.reset();
  let start = performance.now();
  for (let i = 0; i < RUNS; i++)
    await driveRun(engineDeps(store, model('loop')), (await seedRun(store, version)).runId);
  const runtimeMs = (performance.now() - start) / (RUNS * TURNS);
  const plain = {
    reads: counts.reads / (RUNS * TURNS),
    writes: counts.writes / (RUNS * TURNS),
    items: counts.transactItems / (RUNS * TURNS),
  };

  // Bare SDK: the same conversation, tools answered in memory, nothing persisted.
  const client = new Anthropic({
    apiKey: 'bench',
    baseURL: server.url,
    maxRetries: 0,
    defaultHeaders: { 'x-scripted-fixture': 'loop' },
  });
  start = performance.now();
  for (let i = 0; i < RUNS; i++) {
    const messages: Anthropic.MessageParam[] = [{ role: 'user', content: 'go' }];
    for (let turn = 0; turn < TURNS; turn++) {
      const response = await client.messages.create({
        model: 'claude-sonnet-5-5',
        max_tokens: 1024,
        messages,
      });
      messages.push({ role: 'assistant', content: response.content });
      const uses = response.content.filter((block) => block.type === 'tool_use');
      if (uses.length === 0) break;
      messages.push({
        role: 'user',
        content: uses.map((use) => ({ type: 'tool_result' as const, tool_use_id: use.id, content: 'ok' })),
      });
    }
  }
  const bareMs = (performance.now() - start) / (RUNS * TURNS);

  // Gated turns: request approval, decide, resume.
  const gated = await seedWorkflow(
    store,
    minimalWorkflow({
      gates: { notes_append: 'needs_approval' },
      approvals: { approvers: ['a@example.com'] },
    }),
  );
  const clock = new FixedClock();
  bench.reset();
  for (let i = 0; i < RUNS; i++) {
    const run = await seedRun(store, gated.version, { clock });
    const deps = engineDeps(store, model('gated'), { clock });
    const waiting = await runTurn(deps, { runId: run.runId, turn: 0, segmentStartTurn: 0 });
    const [approvalId] = (await store.getRun(run.runId))!.pendingApprovalIds;
    await decideApproval(
      { store, clock },
      { approvalId: approvalId!, approver: 'a@example.com', decision: 'approved' },
    );
    await driveRun(deps, run.runId, { turn: waiting.turn, segmentStartTurn: 0 });
  }
  const gatedTurn = {
    reads: counts.reads / RUNS,
    writes: counts.writes / RUNS,
    items: counts.transactItems / RUNS,
  };

  printTable(`DynamoDB operations per turn (${RUNS} runs)`, [
    {
      turn: 'plain (1 allowed tool call)',
      reads: plain.reads.toFixed(1),
      writes: plain.writes.toFixed(1),
      'transact items': plain.items.toFixed(1),
    },
    {
      turn: 'gated (request + decide + resume, 2 model calls)',
      reads: gatedTurn.reads.toFixed(1),
      writes: gatedTurn.writes.toFixed(1),
      'transact items': gatedTurn.items.toFixed(1),
    },
  ]);
  printTable(`Time per turn, zero-latency scripted model, DynamoDB Local (${RUNS * TURNS} turns each)`, [
    { loop: 'runtime (gates, ledger, budget, audit, DynamoDB)', 'ms/turn': runtimeMs.toFixed(2) },
    { loop: 'bare SDK, no persistence', 'ms/turn': bareMs.toFixed(2) },
    { loop: 'ratio runtime / bare', 'ms/turn': (runtimeMs / bareMs).toFixed(1) },
    { loop: 'runtime overhead per turn', 'ms/turn': (runtimeMs - bareMs).toFixed(2) },
  ]);
} finally {
  await server.close();
  await bench.stop();
}
