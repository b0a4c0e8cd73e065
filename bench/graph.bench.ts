/**
 * npm run bench:graph — what one service step of a graph run costs: Step Functions state transitions (what
 * AWS Standard bills) and DynamoDB requests, measured on the local stack (the synthesized graph machine, the
 * real handlers, a loopback payments server) for a chain of 1 and of 10 service steps. Per step = the
 * difference divided by 9, so the run's fixed part (start, Advance, end, Deliver) cancels out. Prints tables;
 * asserts nothing. Goal (issue #13): ≤ 4 transitions and ≤ 3 DynamoDB requests per service step.
 */
import { randomUUID } from 'node:crypto';
import { mkdtemp } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ApiClient } from '../shared/cli/client.ts';
import { startFakePayments } from '../shared/demo/fake-payments.ts';
import { BARRIER_KEY } from '../shared/local/durable-commits.ts';
import { startLocalStack } from '../shared/local/stack.ts';
import type { Run } from '../shared/schemas/run.ts';
import { printTable } from './support.ts';

const RUNS = Number(process.env.BENCH_RUNS ?? 3);
const LONG = 10;
/** AWS Step Functions Standard: $0.025 per 1,000 state transitions (us-east-1). */
const USD_PER_TRANSITION = 0.025 / 1000;

const payments = await startFakePayments();
const chain = (steps: number) => `kind: graph
name: chain-${steps}
trigger: { type: on_demand }
budget: { maxUsdPerRun: 1 }
connectors:
  pay:
    kind: http
    description: Pay.
    method: POST
    url: ${payments.url}/refunds
    input: { type: object, properties: { customerId: { type: string }, amount: { type: number } } }
    idempotent: true
nodes:
  - { id: start, type: start }
${Array.from({ length: steps }, (_, i) => `  - { id: s${i}, type: service_task, action: pay, args: { customerId: c${i}, amount: 1 } }`).join('\n')}
  - { id: done, type: end }
edges:
  - { from: start, to: s0 }
${Array.from({ length: steps - 1 }, (_, i) => `  - { from: s${i}, to: s${i + 1} }`).join('\n')}
  - { from: s${steps - 1}, to: done }
`;

const stack = await startLocalStack({
  dataDir: await mkdtemp(join(tmpdir(), 'wf-bench-graph-')),
  inMemory: true,
  port: 0,
  schedulerIntervalMs: 0,
  allowLoopbackPorts: [payments.port],
  internalHosts: ['127.0.0.1'],
  print: () => undefined,
});
const client = new ApiClient(stack.url, { kind: 'api-key', apiKey: stack.apiKey });

/**
 * DynamoDB requests by command, counted on the stack's document client (every handler shares it locally).
 * The local stack's durability barrier (a GetItem after each transaction, shared/local/durable-commits.ts)
 * exists only on DynamoDB Local and is not counted.
 */
const counts: Record<string, number> = {};
/** Items inside the transactions, by kind (Put, ConditionCheck …): what the write capacity is billed on. */
const transactItems: Record<string, number> = {};
stack.store.ctx.doc.middlewareStack.add(
  (next, context) => async (args) => {
    const name = String(context.commandName);
    const input = args.input as { Key?: Record<string, unknown>; TransactItems?: Record<string, unknown>[] };
    if (JSON.stringify(input.Key) !== JSON.stringify(BARRIER_KEY)) counts[name] = (counts[name] ?? 0) + 1;
    for (const item of input.TransactItems ?? [])
      for (const kind of Object.keys(item)) transactItems[kind] = (transactItems[kind] ?? 0) + 1;
    return next(args);
  },
  { step: 'initialize', name: 'benchGraphCounter' },
);
const total = () => Object.values(counts).reduce((sum, n) => sum + n, 0);

/** Why a run did not end (bench diagnostics). */
async function describeRun(runId: string): Promise<string> {
  const loaded = await stack.store.loadGraphRun(runId);
  return JSON.stringify({
    status: loaded?.run.status,
    error: loaded?.run.error,
    steps: loaded?.steps.map((s) => [s.stepId, s.status, s.error?.message]),
  });
}

type Measured = {
  transitions: number;
  events: number;
  requests: number;
  byCommand: Record<string, number>;
  items: Record<string, number>;
};

/**
 * One run: the transitions of its execution, and every DynamoDB request from the start request to the
 * execution's end (the API's start is the same for every chain length, so it cancels out per step).
 * The execution is awaited on the local Step Functions, never by polling the table.
 */
async function measure(workflowId: string): Promise<Measured> {
  for (const key of Object.keys(counts)) delete counts[key];
  for (const key of Object.keys(transactItems)) delete transactItems[key];
  const { body } = await client.post<{ run: Run }>(
    `/v1/workflows/${workflowId}/runs`,
    {},
    { headers: { 'Idempotency-Key': randomUUID() } },
  );
  const executionArn = body.run.executionArn;
  if (!executionArn) throw new Error('the run has no execution');
  await stack.graphSfn.waitForExecution(executionArn);
  const requests = total();
  const byCommand = { ...counts };
  const items = { ...transactItems };
  const run = await stack.store.getRun(body.run.runId);
  if (run?.status !== 'done')
    throw new Error(`run ended ${run?.status}: ${await describeRun(body.run.runId)}`);
  return {
    transitions: stack.graphSfn.stateTransitions(executionArn),
    events: stack.graphSfn.historyEventCount(executionArn),
    requests,
    byCommand,
    items,
  };
}

async function repeat(workflowId: string): Promise<Measured> {
  const results: Measured[] = [];
  for (let i = 0; i < RUNS; i++) results.push(await measure(workflowId));
  const first = results[0]!;
  if (results.some((r) => r.transitions !== first.transitions || r.requests !== first.requests))
    throw new Error(`runs differ: ${JSON.stringify(results)}`);
  return first;
}

try {
  const ids: Record<number, string> = {};
  for (const steps of [1, LONG]) {
    const { body } = await client.post<{ workflow: { workflowId: string } }>('/v1/workflows', chain(steps), {
      contentType: 'application/yaml',
    });
    ids[steps] = body.workflow.workflowId;
  }
  // One warm-up run each (the bound version is read once per process, as in a warm Lambda container).
  await measure(ids[1]!);
  await measure(ids[LONG]!);
  const one = await repeat(ids[1]!);
  const long = await repeat(ids[LONG]!);
  const per = (a: number, b: number) => (b - a) / (LONG - 1);
  const step = {
    transitions: per(one.transitions, long.transitions),
    events: per(one.events, long.events),
    requests: per(one.requests, long.requests),
  };
  printTable(`Graph runs: one service step of a chain, local stack (${RUNS} runs each, all identical)`, [
    {
      'per service step': 'ServiceStep, RouteGraph',
      'transitions/step': step.transitions,
      'goal ≤': 4,
      'DynamoDB requests/step': step.requests,
      'goal ≤ ': 3,
      'history events/step (approx.)': step.events,
      'USD per 1M steps (transitions)': (step.transitions * USD_PER_TRANSITION * 1e6).toFixed(2),
    },
  ]);
  const perCommand = Object.fromEntries(
    Object.keys(long.byCommand).map((name) => [
      name,
      per(one.byCommand[name] ?? 0, long.byCommand[name] ?? 0),
    ]),
  );
  printTable('DynamoDB requests per service step, by command', [perCommand]);
  const perItem = Object.fromEntries(
    Object.keys(long.items).map((kind) => [kind, per(one.items[kind] ?? 0, long.items[kind] ?? 0)]),
  );
  // The live workflow head rides in the step's `pending` transaction as a ConditionCheck: an item, no request.
  printTable('Transaction items per service step, by kind (write capacity, not requests)', [perItem]);
  printTable('Whole runs measured', [
    {
      run: '1 service step',
      transitions: one.transitions,
      'DynamoDB requests': one.requests,
      'history events': one.events,
    },
    {
      run: `${LONG} service steps`,
      transitions: long.transitions,
      'DynamoDB requests': long.requests,
      'history events': long.events,
    },
  ]);
  console.log(
    '\nA service step: one Query (run, steps and ledger), one transaction writing the step `running` with its\n' +
      'ledger row `pending` (and the dispatch audit entry) under a ConditionCheck of the live workflow head, the\n' +
      'call, one transaction settling both. The step then decides what is next on the state it committed, so a\n' +
      'chain needs no Advance between its steps.',
  );
} finally {
  await stack.stop();
  await payments.close();
}
