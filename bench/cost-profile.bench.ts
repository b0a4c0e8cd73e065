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
import { createStartRunHandler } from '../functions/start-run.ts';
import { ApiClient } from '../shared/cli/client.ts';
import { billedItemBytes } from '../shared/cost/item-bytes.ts';
import { commandClass } from '../shared/cost/metered-command.ts';
import type { CountsPart } from '../shared/cost/profile.ts';
import { createRequestMeter, type MeterTrace } from '../shared/cost/request-meter.ts';
import type { IndexShape, WriteAction } from '../shared/cost/request-units.ts';
import { coldMessageReads } from '../shared/cost/run-cost.ts';
import { decideThroughPage } from '../shared/demo/approve.ts';
import { BARRIER_KEY } from '../shared/local/durable-commits.ts';
import { localFiles } from '../shared/local/files.ts';
import { startLocalStack } from '../shared/local/stack.ts';
import type { ScriptedFixture } from '../shared/model/index.ts';
import { randomIds, systemClock } from '../shared/runtime/clock.ts';
import type { Run } from '../shared/schemas/run.ts';
import { createStoreContext } from '../shared/store/client.ts';
import { createTableInput, TABLE_KEYS } from '../shared/store/table.ts';
import { EVENT_OWNER_KEY } from '../shared/triggers/index.ts';
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
/**
 * The run shapes: r1–r4 solve the profile's four parts; r5, the five-turn run `wf cost` prices by default, checks
 * what the solved parts predict for it (a cold container's reads grow with the transcript, so there they differ).
 */
const SHAPES = [
  { id: '1', label: '1 turn, 0 tool calls', turns: 1, calls: 0, gated: false },
  { id: '2', label: '3 turns, 2 tool calls', turns: 3, calls: 1, gated: false },
  { id: '3', label: '3 turns, 4 tool calls', turns: 3, calls: 2, gated: false },
  { id: '4', label: '2 turns, 1 gated call (approved)', turns: 2, calls: 1, gated: true },
  { id: '5', label: '5 turns, 4 tool calls', turns: 5, calls: 1, gated: false },
] as const;
/**
 * How a variant's runs start and where their turns run. `api`: `POST /v1/workflows/{id}/runs` with an
 * Idempotency-Key, every turn on the one warm Turn container of the local stack (its caches hold the workflow
 * version and the transcripts it wrote). `cold`: the same start, every turn on a new Turn container (the local
 * stack's `newTurnContainer`: the container's dependencies composed again, on a store whose caches are empty).
 * `schedule` / `event`: the StartRun function's handler (functions/start-run.ts), given what EventBridge Scheduler
 * or an EventBridge rule sends it (shared/triggers-sync/aws-inputs.ts), on the stack's store and executions: a warm
 * StartRun container; the turns warm. Each variant has its own workflows (a schedule's or an event's trigger in
 * the definition), named by the variant's letter and the shape: the scripted model serves the fixture of the
 * workflow's name.
 */
const VARIANTS = [
  { key: 'api', letter: 'r', start: 'api', cold: false, title: 'API start, warm Turn container' },
  {
    key: 'cold',
    letter: 'c',
    start: 'api',
    cold: true,
    title: 'API start, a new Turn container for every turn',
  },
  {
    key: 'schedule',
    letter: 's',
    start: 'schedule',
    cold: false,
    title: 'schedule start (StartRun), warm turns',
  },
  { key: 'event', letter: 'e', start: 'event', cold: false, title: 'event start (StartRun), warm turns' },
] as const;
type Variant = (typeof VARIANTS)[number];
const fixtures = VARIANTS.flatMap((variant) =>
  SHAPES.map((s) => shape(`${variant.letter}${s.id}`, s.turns, s.calls)),
);
const TRIGGERS: Record<Variant['start'], string> = {
  api: 'trigger: { type: on_demand }',
  schedule: 'trigger: { type: schedule, expression: "rate(1 hour)" }',
  event: 'trigger: { type: event, pattern: { source: [com.example.tracker], detail-type: [Issue Opened] } }',
};
const workflow = (name: string, gated: boolean, trigger: string) => `name: ${name}
model: { id: claude-sonnet-5-5, maxTokens: 1024 }
prompt: { system: You keep the team log. Record each step with notes_append. }
allowedActions: [notes_append]
${gated ? 'gates: { notes_append: needs_approval }\napprovals: { approvers: [bench@example.com] }\n' : ''}${trigger}
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
/** Whether the Turn invocations now run on a new container each (the `cold` variant). */
let coldTurns = false;
const stack = await startLocalStack({
  dataDir,
  newTurnContainer: () => coldTurns,
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

// The StartRun function as EventBridge Scheduler and rules invoke it, on the stack's store and executions.
const startRunHandler = createStartRunHandler(() => ({
  store: stack.store,
  executions: stack.executions,
  clock: systemClock,
  ids: randomIds,
}));
/** Starts a run as the variant does: its run id. */
async function start(variant: Variant, workflowId: string): Promise<string> {
  if (variant.start === 'api') {
    const { body } = await client.post<{ run: Run }>(
      `/v1/workflows/${workflowId}/runs`,
      {},
      { headers: { 'Idempotency-Key': randomUUID() } },
    );
    return body.run.runId;
  }
  const owner = stack.owner;
  // What the schedule's target and the rule's target send (aws-inputs.ts): the schedule's time, or the whole event
  // as EventBridge delivers it, its detail stamped with the owner (event-owner.ts). A unique time or event id each,
  // so each is a new run.
  const now = new Date();
  const payload =
    variant.start === 'schedule'
      ? { owner, workflowId, scheduledTime: new Date(now.getTime() + ++scheduled * 3_600_000).toISOString() }
      : {
          owner,
          workflowId,
          event: {
            version: '0',
            id: randomUUID(),
            'detail-type': 'Issue Opened',
            source: 'com.example.tracker',
            account: '123456789012',
            time: now.toISOString().replace(/\.\d+Z$/, 'Z'),
            region: 'us-east-1',
            resources: [],
            detail: { [EVENT_OWNER_KEY]: owner, issue: 4711, labels: ['bug'], severity: 4 },
          },
        };
  const result = await startRunHandler(payload);
  if (!('runId' in result)) throw new Error(`StartRun refused the ${variant.start} start`);
  return result.runId;
}
let scheduled = 0;

/** One run of a fixture, approving any gated call through the page; its counts as a whole. */
async function measure(variant: Variant, workflowId: string): Promise<Measured & { status: string }> {
  filteredReads += meter.counts().filteredReads;
  meter.reset();
  coldTurns = variant.cold;
  const runId = await start(variant, workflowId);
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
  coldTurns = false;
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
async function measureMedian(variant: Variant, workflowId: string): Promise<Measured & { status: string }> {
  const runs: (Measured & { status: string })[] = [];
  for (let i = 0; i < SAMPLES; i++) runs.push(await measure(variant, workflowId));
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

/** The four parts solved from r1–r4: r1 = F + T; r2 = F + 3T + 2C; r3 = F + 3T + 4C; r4 = F + 2T + C + G. */
function solve([r1, r2, r3, r4]: readonly Measured[]) {
  const perToolCall = minus(r3!, r2!, 2);
  const perTurn = minus(minus(r2!, r1!), mul(perToolCall, 2), 2);
  const fixed = minus(r1!, perTurn);
  const perGatedTurn = minus(minus(minus(r4!, fixed), mul(perTurn, 2)), perToolCall);
  return { fixed, perTurn, perToolCall, perGatedTurn };
}
type Parts = ReturnType<typeof solve>;
/** What the parts predict for a shape of `turns` turns with `calls` allowed calls each but the last. */
const predict = (p: Parts, turns: number, calls: number) =>
  minus(minus(p.fixed, mul(p.perTurn, -turns)), mul(p.perToolCall, -(turns - 1) * calls));

try {
  const ids: Record<string, string> = {};
  for (const variant of VARIANTS)
    for (const s of SHAPES) {
      const name = `${variant.letter}${s.id}`;
      const { body } = await client.post<{ workflow: { workflowId: string } }>(
        '/v1/workflows',
        workflow(name, s.gated, TRIGGERS[variant.start]),
        { contentType: 'application/yaml' },
      );
      ids[name] = body.workflow.workflowId;
    }
  const measured: Record<string, { parts: Parts; shapes: (Measured & { status: string })[] }> = {};
  for (const variant of VARIANTS) {
    await measure(variant, ids[`${variant.letter}1`]!); // warm-up: the variant's start path and its workflows
    const shapes: (Measured & { status: string })[] = [];
    for (const s of SHAPES) shapes.push(await measureMedian(variant, ids[`${variant.letter}${s.id}`]!));
    measured[variant.key] = { parts: solve(shapes), shapes };
    printTable(
      `${variant.title}: runs measured (request units: as DynamoDB Local reports them, and by AWS's rule)`,
      SHAPES.map((s, i) => ({
        run: `${variant.letter}${s.id}: ${s.label}`,
        status: shapes[i]!.status,
        ...columns(shapes[i]!),
      })),
    );
  }
  filteredReads += meter.counts().filteredReads;
  if (filteredReads > 0)
    console.log(`note: ${filteredReads} filtered reads (items read but not returned are not sized)`);
  const rows = (p: Parts) => [
    { part: 'fixed per run (start, final answer, delivery)', ...columns(p.fixed) },
    { part: 'per model turn', ...columns(p.perTurn) },
    { part: 'per tool call (allowed)', ...columns(p.perToolCall) },
    { part: 'per gated call (request, decision, resume)', ...columns(p.perGatedTurn) },
  ];
  const warm = measured.api!;
  printTable('Profile: counts per part of a run (the profile takes the AWS-rule columns)', rows(warm.parts));
  const five = SHAPES.findIndex((s) => s.id === '5');
  printTable('The five-turn run (r5), measured against what the warm parts predict for it', [
    ...VARIANTS.map((variant) => ({
      variant: `${variant.key}: measured`,
      ...columns(measured[variant.key]!.shapes[five]!),
    })),
    { variant: 'warm parts: predicted', ...columns(predict(warm.parts, 5, 1)) },
  ]);
  for (const variant of VARIANTS.filter((v) => v.key !== 'api'))
    printTable(
      `${variant.title}: each shape minus the API start's, warm (the variant's own cost)`,
      SHAPES.map((s, i) => ({
        run: `${s.id}: ${s.label}`,
        ...columns(minus(measured[variant.key]!.shapes[i]!, warm.shapes[i]!)),
      })),
    );
  // A trigger's start: its own parts solved from its shapes minus the API start's, shape by shape.
  const triggerParts = (key: 'schedule' | 'event') =>
    solve(measured[key]!.shapes.map((m, i) => minus(m, warm.shapes[i]!)));
  // Cold turns: per turn from r1 (one turn, no message beyond the first), per message read from r2 (3 turns:
  // coldMessageReads in shared/cost/run-cost.ts), checked on r3–r5.
  const cold = measured.cold!.shapes.map((m, i) => minus(m, warm.shapes[i]!));
  const coldPerTurn = cold[0]!;
  const messagesOf = (i: number) =>
    coldMessageReads({
      turns: SHAPES[i]!.turns,
      toolCalls: (SHAPES[i]!.turns - 1) * SHAPES[i]!.calls,
      gatedTurns: SHAPES[i]!.gated ? 1 : 0,
      modelLatencySeconds: 0,
    });
  const perMessageRead = minus(cold[1]!, mul(coldPerTurn, SHAPES[1].turns), messagesOf(1));
  printTable(
    'Cold turns: per turn (from r1) and per transcript message read (from r2), and what they predict for each shape',
    SHAPES.map((s, i) => ({
      run: `${s.id}: ${s.label}`,
      'messages read cold': messagesOf(i),
      'RRU more, measured': cold[i]!.readUnits,
      'RRU more, predicted': coldPerTurn.readUnits * s.turns + perMessageRead.readUnits * messagesOf(i),
      'reads more, measured': cold[i]!.dynamoReads,
      'reads more, predicted': coldPerTurn.dynamoReads * s.turns + perMessageRead.dynamoReads * messagesOf(i),
    })),
  );
  for (const key of ['schedule', 'event'] as const)
    printTable(`${key} start: its parts (added to the API start's)`, rows(triggerParts(key)));
  const partsOf = (p: Parts) => ({
    fixed: profilePart(p.fixed),
    perTurn: profilePart(p.perTurn),
    perToolCall: profilePart(p.perToolCall),
    perGatedTurn: profilePart(p.perGatedTurn),
  });
  const profile = {
    ...partsOf(warm.parts),
    coldTurns: { perTurn: profilePart(coldPerTurn), perMessageRead: profilePart(perMessageRead) },
    triggerStart: { schedule: partsOf(triggerParts('schedule')), event: partsOf(triggerParts('event')) },
  };
  console.log(JSON.stringify(profile, null, 2));
} finally {
  await stack.stop();
  await rm(dataDir, { recursive: true, force: true });
}
