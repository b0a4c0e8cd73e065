/**
 * npm run bench:load — RUNS runs × 5 turns started at once on the local stack (the synthesized state machine,
 * the real handlers, DynamoDB Local, the scripted model through the SDK). Prints completed runs, errors,
 * throttles and turn latency (p50, p95, max): the time from one turn's commit to the next one's, read from the
 * runs' audit entries; the first turn's, from the run's creation, includes its start (the API request and
 * StartExecution, 200 of them at once) and is printed apart, by turn, and in the ratio "with the starts". Then what anchoring the endings of one owner cost
 * (bench/anchor-traffic.ts): Deliver's anchor calls that ran out of attempts (each fails its Deliver, whose
 * Catch goes to MarkFailed, which anchors the head again), the transactions, and the owner chain's
 * verification. Prints tables; asserts nothing.
 */
import { randomUUID } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { verifyOwnerChain } from '../shared/audit/index.ts';
import { ApiClient, ApiError } from '../shared/cli/client.ts';
import { startLocalStack } from '../shared/local/stack.ts';
import type { ScriptedFixture } from '../shared/model/index.ts';
import type { Run } from '../shared/schemas/run.ts';
import { countAnchorTransactions, countingAnchorCalls, noAnchorTraffic } from './anchor-traffic.ts';
import { printTable } from './support.ts';

const RUNS = Number(process.env.BENCH_RUNS ?? 200);
const TURNS = 5;

const fixture: ScriptedFixture = {
  name: 'load',
  turns: [
    ...Array.from({ length: TURNS - 1 }, (_, i) => ({
      response: {
        content: [
          { type: 'text' as const, text: `Logging step ${i + 1}.` },
          { type: 'tool_use' as const, name: 'notes_append', input: { name: 'log', line: `step ${i + 1}` } },
        ],
      },
    })),
    { text: 'All steps are logged.' },
  ],
};
const workflow = `name: load
model: { id: claude-sonnet-5-5, maxTokens: 1024 }
prompt: { system: You keep the team log. Record each step with notes_append. }
allowedActions: [notes_append]
trigger: { type: on_demand }
budget: { maxUsdPerRun: 5, maxTurns: 20 }
`;

const dataDir = await mkdtemp(join(tmpdir(), 'wf-bench-load-'));
const traffic = noAnchorTraffic();
const stack = await startLocalStack({
  dataDir,
  inMemory: true,
  port: 0,
  schedulerIntervalMs: 0,
  fixtures: [fixture],
  print: () => undefined,
  wrapDeliverDeps: countingAnchorCalls(traffic),
});
countAnchorTransactions(stack.store, traffic);
const client = new ApiClient(stack.url, { kind: 'api-key', apiKey: stack.apiKey });

const quantile = (sorted: number[], q: number) =>
  sorted.length === 0 ? Number.NaN : sorted[Math.min(sorted.length - 1, Math.ceil(q * sorted.length) - 1)]!;
const isThrottle = (text: string) =>
  /throttl|429|rate.?limit|TooManyRequests|ProvisionedThroughputExceeded/i.test(text);

try {
  const { body } = await client.post<{ workflow: { workflowId: string } }>('/v1/workflows', workflow, {
    contentType: 'application/yaml',
  });
  const path = `/v1/workflows/${body.workflow.workflowId}/runs`;

  const startErrors: string[] = [];
  const began = performance.now();
  const started = await Promise.all(
    Array.from({ length: RUNS }, async (_, i) => {
      try {
        const { body: created } = await client.post<{ run: Run }>(
          path,
          { input: { n: i } },
          { headers: { 'Idempotency-Key': randomUUID() } },
        );
        return created.run.runId;
      } catch (error) {
        startErrors.push(
          error instanceof ApiError ? `${error.status} ${error.code}: ${error.message}` : String(error),
        );
        return undefined;
      }
    }),
  );
  const runIds = started.filter((id): id is string => id !== undefined);
  const startedMs = performance.now() - began;

  // Wait on the executions in memory: polling the API would load the store the runs are using.
  const arns = new Map<string, string>();
  for (const deadline = Date.now() + 120_000; arns.size < runIds.length && Date.now() < deadline; ) {
    for (const execution of await stack.sfn.listExecutions())
      for (const id of runIds)
        if (execution.name.startsWith(id) && !arns.has(id)) arns.set(id, execution.executionArn);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  const ended = await Promise.allSettled(
    [...arns.values()].map((arn) => stack.sfn.waitForExecution(arn, { timeoutMs: 600_000 })),
  );
  const wallMs = performance.now() - began;

  const runs: Run[] = [];
  // byTurn[0]: from the run's creation to its first turn's commit (the start: the API's request, StartExecution,
  // the first Turn); byTurn[n]: from turn n's commit to turn n + 1's.
  const byTurn: number[][] = Array.from({ length: TURNS }, () => []);
  for (const runId of runIds) {
    const { run } = await client.get<{ run: Run }>(`/v1/runs/${runId}`);
    runs.push(run);
    const { entries } = await client.get<{ entries: { type: string; at: string }[] }>(
      `/v1/runs/${runId}/audit`,
    );
    const marks = entries
      .filter((entry) => entry.type === 'run_created' || entry.type === 'model_call')
      .map((entry) => Date.parse(entry.at));
    for (let i = 1; i < marks.length; i++) byTurn[i - 1]?.push(marks[i]! - marks[i - 1]!);
  }
  const failed = runs.filter((run) => run.status !== 'done');
  const runErrors = failed.map(
    (run) =>
      `${run.status} ${run.stopReason ?? ''} ${run.error ? `${run.error.name}: ${run.error.message}` : ''}`,
  );
  const executionErrors = ended.flatMap((result) =>
    result.status === 'rejected' ? [String(result.reason)] : [],
  );
  const errors = [...startErrors, ...runErrors, ...executionErrors];
  const ascending = (values: number[]) => [...values].sort((a, b) => a - b);
  const sorted = ascending(byTurn.slice(1).flat());
  const p50 = quantile(sorted, 0.5);
  const p95 = quantile(sorted, 0.95);
  const withStarts = ascending(byTurn.flat());

  printTable(`Load: ${RUNS} runs × ${TURNS} turns started at once on the local stack`, [
    {
      runs: RUNS,
      completed: runs.filter((run) => run.status === 'done').length,
      errors: errors.length,
      throttles: errors.filter(isThrottle).length,
      turns: withStarts.length,
      'turn p50 ms': p50,
      'turn p95 ms': p95,
      'turn max ms': sorted.at(-1) ?? Number.NaN,
      'p95 / p50': (p95 / p50).toFixed(2),
      'with the starts: p95 / p50': (quantile(withStarts, 0.95) / quantile(withStarts, 0.5)).toFixed(2),
      'all started ms': Math.round(startedMs),
      'all ended ms': Math.round(wallMs),
    },
  ]);
  printTable(
    'Latency by turn (ms): the first from the run’s creation, each other from the previous turn’s commit',
    byTurn.map((values, i) => {
      const each = ascending(values);
      return {
        turn: i + 1,
        from: i === 0 ? 'run created' : `turn ${i} committed`,
        n: each.length,
        p50: quantile(each, 0.5),
        p95: quantile(each, 0.95),
        max: each.at(-1) ?? Number.NaN,
      };
    }),
  );
  const chain = await stack.store.listOwnerAnchorItems(stack.owner);
  const verified = verifyOwnerChain(chain, { owner: stack.owner });
  printTable('Anchoring the run endings into the owner chain', [
    {
      'anchor calls': traffic.calls,
      'out of attempts (Deliver failed)': traffic.failedCalls,
      'anchor txns': traffic.anchorTransactions,
      'anchor txns cancelled': traffic.anchorCancelled,
      'register txns': traffic.registerTransactions,
      'register txns cancelled': traffic.registerCancelled,
      'chain anchors': chain.length,
      'chain verifies': verified.ok ? 'yes' : `no: ${verified.message}`,
    },
  ]);
  if (errors.length > 0) {
    const kinds = new Map<string, number>();
    for (const error of errors) kinds.set(error.slice(0, 160), (kinds.get(error.slice(0, 160)) ?? 0) + 1);
    printTable(
      'Errors by kind',
      [...kinds].map(([error, count]) => ({ count, error })),
    );
  }
} finally {
  await stack.stop();
  await rm(dataDir, { recursive: true, force: true });
}
