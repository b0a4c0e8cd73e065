/**
 * npm run bench:cost-profile — the measured counts behind `wf cost` (shared/cost/profile.ts): per run shape,
 * Step Functions state transitions and DynamoDB requests and request units as DynamoDB Local reports them
 * (`ReturnConsumedCapacity: TOTAL` on every call: units by actual item sizes, indexes included), on the local
 * stack with the synthesized state machine, the real handlers and the scripted model. Prints the shapes, the
 * per-part profile solved from them, and the profile as JSON to paste into shared/cost/profile.ts.
 */
import { randomUUID } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ApiClient } from '../shared/cli/client.ts';
import type { CountsPart } from '../shared/cost/profile.ts';
import { decideThroughPage } from '../shared/demo/approve.ts';
import { BARRIER_KEY } from '../shared/local/durable-commits.ts';
import { startLocalStack } from '../shared/local/stack.ts';
import type { ScriptedFixture } from '../shared/model/index.ts';
import type { Run } from '../shared/schemas/run.ts';
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
const stack = await startLocalStack({
  dataDir,
  inMemory: true,
  port: 0,
  schedulerIntervalMs: 0,
  fixtures,
  print: () => undefined,
});
const client = new ApiClient(stack.url, { kind: 'api-key', apiKey: stack.apiKey });

const READS = /^(Get|BatchGet|Query|Scan|TransactGet)/;
const meter = { reads: 0, writes: 0, readUnits: 0, writeUnits: 0 };
type Capacity = { CapacityUnits?: number } | { CapacityUnits?: number }[] | undefined;
stack.store.ctx.doc.middlewareStack.add(
  (next, context) => async (args) => {
    const name = String(context.commandName).replace(/Command$/, '');
    const input = args.input as { Key?: { pk?: unknown }; ReturnConsumedCapacity?: string };
    // The local stack's commit barrier (shared/local/durable-commits.ts) is not a request the runtime makes on AWS.
    if (JSON.stringify(input.Key?.pk) === JSON.stringify(BARRIER_KEY.pk)) return next(args);
    input.ReturnConsumedCapacity = 'TOTAL';
    const result = await next(args);
    const consumed = (result.output as { ConsumedCapacity?: Capacity }).ConsumedCapacity;
    const units = [consumed ?? []].flat().reduce((sum, part) => sum + (part.CapacityUnits ?? 0), 0);
    if (READS.test(name)) {
      meter.reads += 1;
      meter.readUnits += units;
    } else {
      meter.writes += 1;
      meter.writeUnits += units;
    }
    return result;
  },
  { step: 'initialize', name: 'benchConsumedCapacity' },
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
async function measure(workflowId: string): Promise<CountsPart & { status: string }> {
  Object.assign(meter, { reads: 0, writes: 0, readUnits: 0, writeUnits: 0 });
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
  const counts = { ...meter };
  const { run: done } = await client.get<{ run: Run }>(`/v1/runs/${runId}`);
  return {
    status: done.status,
    transitions: stack.sfn.stateTransitions(execution.executionArn),
    dynamoReads: counts.reads,
    dynamoWrites: counts.writes,
    readUnits: counts.readUnits,
    writeUnits: counts.writeUnits,
  };
}
const decided = new Set<string>();

const minus = (a: CountsPart, b: CountsPart, k = 1): CountsPart => ({
  transitions: (a.transitions - b.transitions) / k,
  dynamoReads: (a.dynamoReads - b.dynamoReads) / k,
  dynamoWrites: (a.dynamoWrites - b.dynamoWrites) / k,
  readUnits: (a.readUnits - b.readUnits) / k,
  writeUnits: (a.writeUnits - b.writeUnits) / k,
});

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
    await measure(ids.r1!),
    await measure(ids.r2!),
    await measure(ids.r3!),
    await measure(ids.r4!),
  ] as const;
  printTable('Runs measured (DynamoDB units as DynamoDB Local reports them)', [
    { run: 'r1: 1 turn, 0 tool calls', ...r1 },
    { run: 'r2: 3 turns, 2 tool calls', ...r2 },
    { run: 'r3: 3 turns, 4 tool calls', ...r3 },
    { run: 'r4: 2 turns, 1 gated call (approved)', ...r4 },
  ]);
  // r1 = F + T; r2 = F + 3T + 2C; r3 = F + 3T + 4C; r4 = F + 2T + C + G.
  const perToolCall = minus(r3, r2, 2);
  const perTurn = minus(minus(r2, r1), mul(perToolCall, 2), 2);
  const fixed = minus(r1, perTurn);
  const perGatedTurn = minus(minus(minus(r4, fixed), mul(perTurn, 2)), perToolCall);
  printTable('Profile: counts per part of a run', [
    { part: 'fixed per run (start, final answer, delivery)', ...fixed },
    { part: 'per model turn', ...perTurn },
    { part: 'per tool call (allowed)', ...perToolCall },
    { part: 'per gated call (request, decision, resume)', ...perGatedTurn },
  ]);
  console.log(JSON.stringify({ fixed, perTurn, perToolCall, perGatedTurn }, null, 2));
} finally {
  await stack.stop();
  await rm(dataDir, { recursive: true, force: true });
}

function mul(a: CountsPart, k: number): CountsPart {
  return {
    transitions: a.transitions * k,
    dynamoReads: a.dynamoReads * k,
    dynamoWrites: a.dynamoWrites * k,
    readUnits: a.readUnits * k,
    writeUnits: a.writeUnits * k,
  };
}
