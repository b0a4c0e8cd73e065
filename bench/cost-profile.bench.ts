/**
 * npm run bench:cost-profile — the measured counts behind `wf cost` (shared/cost/profile.ts): per run shape,
 * Step Functions state transitions, DynamoDB requests, and request units two ways: as DynamoDB Local reports
 * them (`ReturnConsumedCapacity: TOTAL`) and by AWS's documented rules from the items each request actually
 * wrote and read (shared/cost/request-units.ts), on the local stack with the synthesized state machine, the real
 * handlers and the scripted model. Local bills transactions unlike AWS, so the profile takes AWS's rule. Prints
 * the shapes, the per-part profile solved from them, and the profile as JSON to paste into shared/cost/profile.ts.
 */
import { randomUUID } from 'node:crypto';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { GetCommand } from '@aws-sdk/lib-dynamodb';
import { ApiClient } from '../shared/cli/client.ts';
import { billedItemBytes } from '../shared/cost/item-bytes.ts';
import { commandClass } from '../shared/cost/metered-command.ts';
import type { CountsPart } from '../shared/cost/profile.ts';
import { createRequestMeter, type MeterTrace } from '../shared/cost/request-meter.ts';
import type { IndexShape, WriteAction } from '../shared/cost/request-units.ts';
import { decideThroughPage } from '../shared/demo/approve.ts';
import { BARRIER_KEY } from '../shared/local/durable-commits.ts';
import { localFiles } from '../shared/local/files.ts';
import { startLocalStack } from '../shared/local/stack.ts';
import type { ScriptedFixture } from '../shared/model/index.ts';
import type { Run } from '../shared/schemas/run.ts';
import { createStoreContext } from '../shared/store/client.ts';
import { createTableInput, TABLE_KEYS } from '../shared/store/table.ts';
import { printTable } from './support.ts';

const append = (line: string) => ({
  type: 'tool_use' as const,
  name: 'notes_append',
  input: { name: 'log', line },
});
/** `turns` model calls; every turn but the last makes `calls` tool calls. */
const shape = (name: string, turns: number, calls: number): ScriptedFixture => ({
  name,
  turns: [
    ...Array.from({ length: turns - 1 }, (_, t) => ({
      response: {
        content: [
          { type: 'text' as const, text: `Logging step ${t + 1}.` },
          ...Array.from({ length: calls }, (_, c) => append(`step ${t + 1}.${c + 1} done`)),
        ],
      },
    })),
    { text: 'All steps are logged.' },
  ],
});
const fixtures = [
  shape('r1', 1, 0),
  shape('r2', 3, 1),
  shape('r3', 3, 2),
  { ...shape('r4', 2, 1), name: 'r4' },
];
const workflow = (name: string, gated: boolean) => `name: ${name}
model: { id: claude-sonnet-5-5, maxTokens: 1024 }
prompt: { system: You keep the team log. Record each step with notes_append. }
allowedActions: [notes_append]
${gated ? 'gates: { notes_append: needs_approval }\napprovals: { approvers: [bench@example.com] }\n' : ''}trigger: { type: on_demand }
budget: { maxUsdPerRun: 5, maxTurns: 20, maxToolCallsPerTurn: 4 }
`;

const dataDir = await mkdtemp(join(tmpdir(), 'wf-bench-cost-'));
// BENCH_OWNER=<owner id>: the runs' owner, in place of the local stack's `local`. A deployed owner is a verified
// identity (a JWT subject such as a Cognito user's 36-character `sub`, or an API key's owner: 1–128
// characters, shared/schemas/common.ts), and it is written in the run item (3 times), every audit entry, the
// idempotency marker and the owner's anchor items, so its length moves items across DynamoDB's 1 KB write unit.
if (process.env.BENCH_OWNER) {
  const files = localFiles(dataDir);
  await writeFile(
    files.apiKeys,
    JSON.stringify({ keys: { [`wfl_${randomUUID()}`]: { owner: process.env.BENCH_OWNER } } }),
    { mode: 0o600 },
  );
}
const stack = await startLocalStack({
  dataDir,
  inMemory: true,
  port: 0,
  schedulerIntervalMs: 0,
  fixtures,
  print: () => undefined,
});
const client = new ApiClient(stack.url, { kind: 'api-key', apiKey: stack.apiKey });

// Units two ways: as DynamoDB Local reports them (`ReturnConsumedCapacity: TOTAL`), and by AWS's documented
// rules from the items actually read and written (shared/cost/request-units.ts). Local does not bill
// transactions as AWS does, so the profile is emitted from AWS's rules; Local's column is shown for comparison.
const KEY_NAMES = [TABLE_KEYS.partitionKey, TABLE_KEYS.sortKey];
const INDEXES: IndexShape[] = (createTableInput('bench').GlobalSecondaryIndexes ?? []).map((index) => {
  if (index.Projection.ProjectionType !== 'ALL') throw new Error(`${index.IndexName}: only ALL is modelled`);
  const key = (type: string) => index.KeySchema.find((part) => part.KeyType === type)?.AttributeName;
  return { name: index.IndexName, partitionKey: key('HASH')!, sortKey: key('RANGE'), projection: 'ALL' };
});
// A second client on the same DynamoDB Local, outside the meter: it looks at the items a write touches.
const endpoint = await stack.store.ctx.doc.config.endpoint!();
const peekContext = createStoreContext({
  endpoint: `${endpoint.protocol}//${endpoint.hostname}:${endpoint.port}${endpoint.path}`,
  tableName: stack.store.ctx.table,
});
const peek = (key: Record<string, unknown>) =>
  peekContext.doc
    .send(new GetCommand({ TableName: stack.store.ctx.table, Key: key, ConsistentRead: true }))
    .then((out) => out.Item);
const describe = ({ kind, before, after }: WriteAction) =>
  [
    kind,
    `${before ? billedItemBytes(before) : '-'}→${after ? billedItemBytes(after) : '-'} B`,
    ...INDEXES.filter((index) => after?.[index.partitionKey] !== undefined).map((index) => index.name),
    String((after ?? before)?.[TABLE_KEYS.sortKey] ?? '?').slice(0, 24),
  ].join(' ');
// WF_BENCH_TRACE=1: each write request, Local's units beside the rule's, and its items (kind, bytes before →
// after, in gsi1/gsi2 after, sort key), to see where the two disagree; failed and canceled writes too.
const trace = (entry: MeterTrace) =>
  console.log(entry.commandName, entry.outcome, { local: entry.local, rule: entry.units }, [
    ...(entry.request?.actions.map(describe) ?? []),
    ...(entry.reasons ?? []),
  ]);
const meter = createRequestMeter({
  keyNames: KEY_NAMES,
  indexes: INDEXES,
  peek,
  ...(process.env.WF_BENCH_TRACE ? { trace } : {}),
});
let filteredReads = 0;
stack.store.ctx.doc.middlewareStack.add(
  (next, context) => async (args) => {
    const name = String(context.commandName);
    const input = args.input as Record<string, unknown> & { Key?: { pk?: unknown } };
    // The local stack's commit barrier (shared/local/durable-commits.ts) is not a request the runtime makes on AWS.
    if (JSON.stringify(input.Key?.pk) === JSON.stringify(BARRIER_KEY.pk)) return next(args);
    if (commandClass(name) !== 'other') input.ReturnConsumedCapacity = 'TOTAL';
    return meter.measure(name, input, () => next(args));
  },
  { step: 'initialize', name: 'benchRequestUnits' },
);

async function until<T>(check: () => Promise<T | undefined>): Promise<T> {
  for (const deadline = Date.now() + 60_000; Date.now() < deadline; ) {
    const value = await check();
    if (value !== undefined) return value;
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
  throw new Error('timed out');
}

/** One run of a fixture, approving any gated call through the page; its counts as a whole. */
async function measure(workflowId: string): Promise<Measured & { status: string }> {
  filteredReads += meter.counts().filteredReads;
  meter.reset();
  const { body } = await client.post<{ run: Run }>(
    `/v1/workflows/${workflowId}/runs`,
    {},
    { headers: { 'Idempotency-Key': randomUUID() } },
  );
  const runId = body.run.runId;
  // Watch only in-memory state (the execution, the inbox) so the bench's own polling costs no DynamoDB request.
  const execution = await until(async () =>
    (await stack.sfn.listExecutions()).find((candidate) => candidate.name.startsWith(runId)),
  );
  let finished = false;
  const approving = (async () => {
    while (!finished) {
      const notice = stack.inbox.notices().find((n) => n.runId === runId && !decided.has(n.url));
      if (notice) {
        decided.add(notice.url);
        await decideThroughPage(notice.url, 'approve');
      }
      await new Promise((resolve) => setTimeout(resolve, 25));
    }
  })();
  await stack.sfn.waitForExecution(execution.executionArn);
  finished = true;
  await approving;
  const counts = meter.counts();
  const { run: done } = await client.get<{ run: Run }>(`/v1/runs/${runId}`);
  return {
    status: done.status,
    transitions: stack.sfn.stateTransitions(execution.executionArn),
    dynamoReads: counts.reads,
    dynamoWrites: counts.writes,
    readUnits: counts.readUnits,
    writeUnits: counts.writeUnits,
    localReadUnits: counts.localReadUnits,
    localWriteUnits: counts.localWriteUnits,
    indexWriteUnits: counts.indexWriteUnits,
    failedWrites: counts.failedWrites,
    failedWriteUnits: counts.failedWriteUnits,
    canceledTransactions: counts.canceledTransactions,
  };
}
const decided = new Set<string>();

/**
 * Each shape run SAMPLES times, every count the median of its runs. A run's requests are not always the same
 * on the local stack (stop 22: turn 0's first commit lost a race to StartRun recording the execution ARN, which
 * is no longer written; a gated run's page and decision race its resume), and one odd run among four single
 * ones skewed the solved profile (negative parts).
 */
const SAMPLES = 3;
async function measureMedian(workflowId: string): Promise<Measured & { status: string }> {
  const runs: (Measured & { status: string })[] = [];
  for (let i = 0; i < SAMPLES; i++) runs.push(await measure(workflowId));
  const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)]!;
  const status = runs.every((run) => run.status === runs[0]!.status) ? runs[0]!.status : 'mixed';
  return { ...combine((field) => median(runs.map((run) => run[field]))), status };
}

type Measured = CountsPart & {
  localReadUnits: number;
  localWriteUnits: number;
  indexWriteUnits: number;
  /** Single-item writes whose condition failed, and their units (in dynamoWrites and writeUnits). */
  failedWrites: number;
  failedWriteUnits: number;
  /** Canceled TransactWriteItems: in dynamoWrites, their units in none of the columns (AWS states no rule). */
  canceledTransactions: number;
};
const FIELDS = [
  'transitions',
  'dynamoReads',
  'dynamoWrites',
  'readUnits',
  'writeUnits',
  'localReadUnits',
  'localWriteUnits',
  'indexWriteUnits',
  'failedWrites',
  'failedWriteUnits',
  'canceledTransactions',
] as const;
const combine = (f: (field: (typeof FIELDS)[number]) => number): Measured =>
  Object.fromEntries(FIELDS.map((field) => [field, f(field)])) as Measured;
const minus = (a: Measured, b: Measured, k = 1) => combine((field) => (a[field] - b[field]) / k);
const mul = (a: Measured, k: number) => combine((field) => a[field] * k);
/** A row with both unit columns side by side: Local's report, then AWS's rule (the one the profile uses). */
const columns = (m: Measured) => ({
  transitions: m.transitions,
  reads: m.dynamoReads,
  writes: m.dynamoWrites,
  'RRU Local': m.localReadUnits,
  'RRU AWS rule': m.readUnits,
  'WRU Local': m.localWriteUnits,
  'WRU AWS rule': m.writeUnits,
  'of which GSI': m.indexWriteUnits,
  'failed cond. writes (WRU)': `${m.failedWrites} (${m.failedWriteUnits})`,
  'canceled tx': m.canceledTransactions,
});
const profilePart = ({
  localReadUnits: _r,
  localWriteUnits: _w,
  indexWriteUnits: _i,
  failedWrites: _f,
  failedWriteUnits: _fu,
  canceledTransactions: _c,
  ...part
}: Measured): CountsPart => part;

try {
  const ids: Record<string, string> = {};
  for (const fixture of fixtures) {
    const { body } = await client.post<{ workflow: { workflowId: string } }>(
      '/v1/workflows',
      workflow(fixture.name!, fixture.name === 'r4'),
      { contentType: 'application/yaml' },
    );
    ids[fixture.name!] = body.workflow.workflowId;
  }
  await measure(ids.r1!); // warm-up
  const [r1, r2, r3, r4] = [
    await measureMedian(ids.r1!),
    await measureMedian(ids.r2!),
    await measureMedian(ids.r3!),
    await measureMedian(ids.r4!),
  ] as const;
  printTable("Runs measured (request units: as DynamoDB Local reports them, and by AWS's rule)", [
    { run: 'r1: 1 turn, 0 tool calls', status: r1.status, ...columns(r1) },
    { run: 'r2: 3 turns, 2 tool calls', status: r2.status, ...columns(r2) },
    { run: 'r3: 3 turns, 4 tool calls', status: r3.status, ...columns(r3) },
    { run: 'r4: 2 turns, 1 gated call (approved)', status: r4.status, ...columns(r4) },
  ]);
  filteredReads += meter.counts().filteredReads;
  if (filteredReads > 0)
    console.log(`note: ${filteredReads} filtered reads (items read but not returned are not sized)`);
  // r1 = F + T; r2 = F + 3T + 2C; r3 = F + 3T + 4C; r4 = F + 2T + C + G.
  const perToolCall = minus(r3, r2, 2);
  const perTurn = minus(minus(r2, r1), mul(perToolCall, 2), 2);
  const fixed = minus(r1, perTurn);
  const perGatedTurn = minus(minus(minus(r4, fixed), mul(perTurn, 2)), perToolCall);
  printTable('Profile: counts per part of a run (the profile takes the AWS-rule columns)', [
    { part: 'fixed per run (start, final answer, delivery)', ...columns(fixed) },
    { part: 'per model turn', ...columns(perTurn) },
    { part: 'per tool call (allowed)', ...columns(perToolCall) },
    { part: 'per gated call (request, decision, resume)', ...columns(perGatedTurn) },
  ]);
  const profile = {
    fixed: profilePart(fixed),
    perTurn: profilePart(perTurn),
    perToolCall: profilePart(perToolCall),
    perGatedTurn: profilePart(perGatedTurn),
  };
  console.log(JSON.stringify(profile, null, 2));
} finally {
  await stack.stop();
  await rm(dataDir, { recursive: true, force: true });
}
