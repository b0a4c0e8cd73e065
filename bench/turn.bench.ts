/**
 * npm run bench:turn — what one turn costs the runtime, with a zero-latency scripted model:
 * DynamoDB requests per turn (plain and gated), and time per turn against the durable floor (bench/floor.ts:
 * the bare SDK loop plus one GetItem and one TransactWriteItems per turn, on the same DynamoDB Local, in the
 * same run) and against the bare SDK with no persistence; a gated turn phase by phase, its approval page and
 * decision through the real approval HTTP app; a plain turn and a parking turn on another container than the
 * previous turn's (each turn gets the state the previous one left, as the state machine hands it over). Time per
 * turn is wall time and this process's CPU time. Prints tables; asserts nothing.
 */
import Anthropic from '@anthropic-ai/sdk';
import { createActionCatalog } from '../shared/actions/index.ts';
import { createApprovalApp, requestApproval } from '../shared/approvals-http/index.ts';
import type { TurnDeps } from '../shared/core/engine.ts';
import type { TurnInput } from '../shared/core/outcome.ts';
import { runTurn } from '../shared/core/turn.ts';
import { approvalFormBody, readApprovalForm } from '../shared/demo/approve.ts';
import { createAnthropicModel, startScriptedModelServer } from '../shared/model/index.ts';
import { runExecutionInput } from '../shared/runs/start-run.ts';
import type { Run } from '../shared/schemas/run.ts';
import { driveRun, engineDeps, firstAttempt } from '../test/support/engine.ts';
import { FixedClock, minimalWorkflow, seedRun, seedWorkflow } from '../test/support/store.ts';
import { bareLoop, floorLoop, ledgerFloorLoop } from './floor.ts';
import { leastTurns, measureRequestCosts, REQUEST_KINDS } from './request-costs.ts';
import { benchStore, type OpCounts, printTable } from './support.ts';
import {
  commandTimer,
  printCpuProfiles,
  printRequestBytes,
  printRequestProfile,
  requestBytes,
  requestRecorder,
} from './turn-profile.ts';

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

/** A gated call that is not the run's first turn: an allowed call first, then the gated one. */
const gatedLaterFixture = {
  name: 'gated-later',
  turns: [
    { response: { content: [{ type: 'tool_use' as const, name: 'current_time', input: {} }] } },
    ...gatedFixture.turns,
  ],
};

const server = await startScriptedModelServer({ fixtures: [loopFixture, gatedFixture, gatedLaterFixture] });
const bench = await benchStore();
const { store, counts } = bench;
// The approval pages' container: a function of its own on AWS (its own store and workflow-version cache).
const pagesStore = bench.otherContainer();
// Another container of the same function, for a decision that does not come back to its page's container.
const elsewhereStore = bench.otherContainer();
// Another container of the Turn function, where a run's turn lands after its previous turn ran in `store`'s:
// Lambda gives a run's turns no affinity. Warm (it has served other runs of the workflow), never this run.
const turnElsewhere = bench.otherContainer();
const recorder = requestRecorder(store, pagesStore, elsewhereStore, turnElsewhere);
const toolWrite = commandTimer(store, 'UpdateItemCommand');
const model = (fixture: string) =>
  createAnthropicModel({
    apiKey: 'bench',
    baseURL: server.url,
    defaultHeaders: { 'x-scripted-fixture': fixture },
  });
const client = new Anthropic({
  apiKey: 'bench',
  baseURL: server.url,
  maxRetries: 0,
  defaultHeaders: { 'x-scripted-fixture': 'loop' },
});

/** Requests by kind: the tool's own write (notes_append's UpdateItem) is the action's, not the runtime's. */
type Tally = { turns: number; reads: number; writes: number; items: number; toolWrites: number };
const tally = (): Tally => ({ turns: 0, reads: 0, writes: 0, items: 0, toolWrites: 0 });
const snapshot = (c: OpCounts) => ({
  reads: c.reads,
  writes: c.writes - (c.byCommand.UpdateItemCommand ?? 0),
  items: c.transactItems,
  toolWrites: c.byCommand.UpdateItemCommand ?? 0,
});
function add(into: Tally, before: ReturnType<typeof snapshot>, after: ReturnType<typeof snapshot>) {
  into.turns += 1;
  into.reads += after.reads - before.reads;
  into.writes += after.writes - before.writes;
  into.items += after.items - before.items;
  into.toolWrites += after.toolWrites - before.toolWrites;
}

/**
 * Drives a run turn by turn like the state machine, adding each turn's requests to its kind's tally. Each turn
 * is the first attempt of its entry into Turn, as the state machine reports it (shared/core/attempt.ts), with
 * the input the run's execution is started with (its first turn reads the head it names: start-run.ts) and
 * the state the previous turn left (a `continue` names what the next turn reads: its `readHint`). With
 * `elsewhere`, turn `elsewhere.turn` runs on that container's deps instead, its requests in `elsewhere.tally`.
 */
async function driveCounted(
  deps: TurnDeps,
  run: Run,
  tool: Tally,
  final: Tally,
  elsewhere?: { turn: number; deps: TurnDeps; tally: Tally },
) {
  const { runId } = run;
  const started = runExecutionInput(run);
  let pointer: TurnInput = { runId, turn: 0, segmentStartTurn: 0 };
  for (;;) {
    const before = snapshot(counts);
    const there = elsewhere?.turn === pointer.turn ? elsewhere : undefined;
    const outcome = await runTurn(there?.deps ?? deps, {
      ...pointer,
      ...(started.headHint ? { headHint: started.headHint } : {}),
      attempt: firstAttempt(runId),
    });
    add(there ? there.tally : outcome.next === 'continue' ? tool : final, before, snapshot(counts));
    if (outcome.next !== 'continue') return;
    pointer = {
      runId,
      turn: outcome.turn,
      segmentStartTurn: 0,
      ...(outcome.readHint ? { readHint: outcome.readHint } : {}),
    };
  }
}

const perTurn = (t: Tally) => ({
  reads: (t.reads / t.turns).toFixed(1),
  'writes (transactions)': (t.writes / t.turns).toFixed(1),
  'transact items': (t.items / t.turns).toFixed(1),
  'tool writes (notes_append)': (t.toolWrites / t.turns).toFixed(1),
});

try {
  // One Turn container's dependencies for every run, as a warm Lambda container keeps them (its action catalog
  // and tool schemas are built once per container, not per run).
  const loopDeps = engineDeps(store, model('loop'));
  // Warm up every path once (the runtime, the floor, the bare SDK).
  const warm = await seedWorkflow(store, minimalWorkflow());
  await driveRun(loopDeps, (await seedRun(store, warm.version)).runId);
  await floorLoop(store, client, { runs: 1, turns: TURNS });
  await ledgerFloorLoop(store, client, { runs: 1, turns: TURNS });
  await bareLoop(client, TURNS);

  // Runtime: plain turns, counted per turn.
  const { version } = await seedWorkflow(
    store,
    minimalWorkflow({ budget: { maxUsdPerRun: 5, maxTurns: 20 } }),
  );
  const toolTurns = tally();
  const finalTurns = tally();
  const floorTally = tally();
  const ledgerTally = tally();
  // Interleaved run by run (runtime, floor, ledger floor, bare SDK), so a change of load on this shared machine weighs
  // on all three alike and the ratio stays comparable.
  let runtimeTotal = 0;
  let floorTotal = 0;
  let ledgerTotal = 0;
  let bareTotal = 0;
  let bareTurns = 0;
  // CPU time of this process (user + system) in each loop: on a loaded machine wall time is mostly waiting for
  // a core, CPU time is the work. It counts the in-process scripted model server for all three loops alike.
  const cpu = { runtime: 0, floor: 0, ledger: 0, bare: 0 };
  const cpuMs = (since: NodeJS.CpuUsage) => {
    const used = process.cpuUsage(since);
    return (used.user + used.system) / 1000;
  };
  /** One run of a floor loop: its time, its CPU, and its requests added to `into` (as one tally per turn). */
  const floorRun = async (loop: typeof floorLoop, into: Tally) => {
    const before = snapshot(counts);
    const cpuStart = process.cpuUsage();
    const done = await loop(store, client, { runs: 1, turns: TURNS });
    const used = cpuMs(cpuStart);
    add(into, before, snapshot(counts));
    into.turns += done.turns - 1;
    return { ms: done.ms, cpuMs: used };
  };
  for (let i = 0; i < RUNS; i++) {
    const run = await seedRun(store, version);
    let start = performance.now();
    let cpuStart = process.cpuUsage();
    toolWrite.on = true;
    await driveCounted(loopDeps, run, toolTurns, finalTurns);
    runtimeTotal += performance.now() - start;
    cpu.runtime += cpuMs(cpuStart);
    toolWrite.on = false;

    const floor = await floorRun(floorLoop, floorTally);
    cpu.floor += floor.cpuMs;
    floorTotal += floor.ms;
    const ledger = await floorRun(ledgerFloorLoop, ledgerTally);
    cpu.ledger += ledger.cpuMs;
    ledgerTotal += ledger.ms;

    start = performance.now();
    cpuStart = process.cpuUsage();
    bareTurns += await bareLoop(client, TURNS);
    cpu.bare += cpuMs(cpuStart);
    bareTotal += performance.now() - start;
  }
  // Plain turns on another container than the previous turn's: turn 3 of each run lands on `turnElsewhere`,
  // which serves the workflow (its version cached) but has never read the run. Not in the totals above.
  const plainElsewhere = tally();
  await driveCounted(
    engineDeps(turnElsewhere, model('loop')),
    await seedRun(store, version),
    tally(),
    tally(),
  );
  for (let i = 0; i < RUNS; i++) {
    const run = await seedRun(store, version);
    await driveCounted(loopDeps, run, tally(), tally(), {
      turn: 3,
      deps: engineDeps(turnElsewhere, model('loop')),
      tally: plainElsewhere,
    });
  }
  const turnsRun = toolTurns.turns + finalTurns.turns;
  const runtimeMs = runtimeTotal / turnsRun;
  const toolMs = toolWrite.ms / turnsRun;
  const floorMs = floorTotal / floorTally.turns;
  const ledgerMs = ledgerTotal / ledgerTally.turns;
  const bareMs = bareTotal / bareTurns;
  const allTurns = {
    turns: turnsRun,
    reads: toolTurns.reads + finalTurns.reads,
    writes: toolTurns.writes + finalTurns.writes,
    items: toolTurns.items + finalTurns.items,
    toolWrites: toolTurns.toolWrites + finalTurns.toolWrites,
  };

  // Gated turns: request approval, decide, resume.
  const gated = await seedWorkflow(
    store,
    minimalWorkflow({
      gates: { notes_append: 'needs_approval' },
      approvals: { approvers: ['a@example.com'] },
    }),
  );
  const clock = new FixedClock();
  // Per phase, so a change shows where its requests went (a phase is counted once per run).
  const phases = {
    'parking turn (the model asks, the call is gated)': tally(),
    'RequestApproval (task token, links sent, audited)': tally(),
    'approval page GET (the signed link)': tally(),
    'decision POST, another container than the page’s (approve: verify, commit, resume)': tally(),
    'resume (answer the call, final model call)': tally(),
  };
  const [requesting, notifying, loading, deciding, resuming] = Object.values(phases) as Tally[];
  // The RequestApproval function's work, as on AWS: the run and its approvals read (their ids come in the
  // state, from the parking turn), a link sent to each approver (an in-memory channel: SNS is no DynamoDB
  // request), then the task token stored and the notices audited in one commit.
  const links: string[] = [];
  const approvalChannel = {
    channel: 'bench',
    reaches: () => true,
    notify: async (notice: { url: string }) => void links.push(notice.url),
  };
  const taskTokens = { sendSuccess: async () => 'sent' as const, sendFailure: async () => 'sent' as const };
  const benchKeyring = { current: { kid: 'bench', secret: 'bench-approval-secret-0123456789abcdef' } };
  const silent = { info: () => {}, warn: () => {}, error: () => {} };
  const publicBaseUrl = 'http://127.0.0.1:8787';
  // The approval pages as an approver meets them: the real approval HTTP app (the approval-http function), in
  // a container of its own (its own store and workflow-version cache, as on AWS), on the same DynamoDB Local;
  // its requests are counted like the others'. The page GET and the decision POST go through its routes.
  const pages = createApprovalApp({
    store: pagesStore,
    clock,
    keyring: benchKeyring,
    taskTokens,
    publicBaseUrl,
    actions: createActionCatalog({ notes: store }),
    logger: silent,
  });
  // The same function's other container, where the decisions land: API Gateway and Lambda give a POST no
  // affinity to the container that served its page. The form's sealed state carries what the page read
  // (shared/approvals-http/form-state.ts), so the container makes no difference; a decision on the page's own
  // container, and one without the state (an API client, a page of an earlier release), are shown once.
  const pagesElsewhere = createApprovalApp({
    store: elsewhereStore,
    clock,
    keyring: benchKeyring,
    taskTokens,
    publicBaseUrl,
    actions: createActionCatalog({ notes: store }),
    logger: silent,
  });
  const pagePath = (url: string) => `${new URL(url).pathname}${new URL(url).search}`;
  /**
   * One gated turn, phase by phase; `count` adds each phase's requests to its tally. The decision goes to
   * another container than the page's unless `decideOn` names the page's; `withState: false` posts the form
   * without its sealed state.
   */
  async function gatedTurn(
    i: number,
    count: (phase: Tally, step: () => Promise<unknown>) => Promise<void>,
    { decideOn = pagesElsewhere, withState = true } = {},
  ) {
    const run = await seedRun(store, gated.version, { clock });
    const deps = engineDeps(store, model('gated'), { clock });
    let waiting: Awaited<ReturnType<typeof runTurn>> | undefined;
    await count(requesting!, async () => {
      // Turn 0 as the run's first execution starts it: the input names the workflow head (start-run.ts).
      waiting = await runTurn(deps, { ...runExecutionInput(run), attempt: firstAttempt(run.runId) });
    });
    const approvalIds = waiting?.next === 'await_approval' ? waiting.approvalIds : undefined;
    links.length = 0;
    await count(notifying!, () =>
      requestApproval(
        {
          store,
          clock,
          keyring: benchKeyring,
          publicBaseUrl,
          notifier: approvalChannel,
          taskTokens,
          logger: silent,
        },
        { runId: run.runId, taskToken: `bench-token-${i}`, approvalIds },
      ),
    );
    const link = links[0]!;
    let html = '';
    await count(loading!, async () => {
      const page = await pages.request(pagePath(link));
      html = await page.text();
      if (page.status !== 200) throw new Error(`the approval page answered ${page.status}`);
    });
    const { state, ...stateless } = readApprovalForm(html, link);
    if (state === undefined) throw new Error('the approval page carries no state');
    const form = withState ? { ...stateless, state } : stateless;
    await count(deciding!, async () => {
      const decided = await decideOn.request(pagePath(form.action), {
        method: 'POST',
        headers: { 'content-type': 'application/x-www-form-urlencoded' },
        body: approvalFormBody(form, 'approve'),
      });
      if (decided.status !== 200) throw new Error(`the decision answered ${decided.status}`);
    });
    await count(resuming!, () => driveRun(deps, run.runId, { turn: waiting!.turn, segmentStartTurn: 0 }));
  }
  // Warmed up once, like the plain turns: a container has the workflow version cached after its first run.
  await gatedTurn(-1, async (_phase, step) => void (await step()));
  for (let i = 0; i < RUNS; i++) {
    await gatedTurn(i, async (phase, step) => {
      const before = snapshot(counts);
      await step();
      add(phase, before, snapshot(counts));
    });
  }
  // One more, recorded request by request: where each phase's requests go (the tool's own write included).
  const phaseNames = new Map(Object.entries(phases).map(([name, t]) => [t, name]));
  const gatedRequests: Record<string, string>[] = [];
  await gatedTurn(RUNS, async (phase, step) => {
    const { log } = await recorder.record(step);
    const requests = log.map((entry) => `${entry.command} ${entry.items.join(', ')}`.trim());
    gatedRequests.push({ phase: phaseNames.get(phase) ?? '?', requests: requests.join(' → ') });
  });
  // And the decision's variants, not in the totals: on the page's own container, and without the state.
  const variants = [
    ['decision POST on the page’s container (not in the totals)', { decideOn: pages }],
    [
      'decision POST without the form’s state: an API client, an earlier page (not in the totals)',
      { withState: false },
    ],
  ] as const;
  for (const [n, [name, options]] of variants.entries()) {
    await gatedTurn(
      RUNS + 1 + n,
      async (phase, step) => {
        if (phase !== deciding) return void (await step());
        const { log } = await recorder.record(step);
        gatedRequests.push({
          phase: name,
          requests: log.map((entry) => `${entry.command} ${entry.items.join(', ')}`.trim()).join(' → '),
        });
      },
      options,
    );
  }
  // The parking turn on another container than the previous turn's: the run's first turn (an allowed call)
  // in `store`'s container, its second (the gated call) on `turnElsewhere`, with the state the first left.
  // Not in the totals; one more recorded request by request.
  const parkingElsewhere = tally();
  async function parkElsewhere(count: (step: () => Promise<unknown>) => Promise<void>) {
    const run = await seedRun(store, gated.version, { clock });
    const first = await runTurn(engineDeps(store, model('gated-later'), { clock }), {
      ...runExecutionInput(run),
      attempt: firstAttempt(run.runId),
    });
    if (first.next !== 'continue') throw new Error(`the first turn answered ${first.next}`);
    const there = engineDeps(turnElsewhere, model('gated-later'), { clock });
    await count(async () => {
      const parked = await runTurn(there, {
        runId: run.runId,
        turn: first.turn,
        segmentStartTurn: 0,
        ...(first.readHint ? { readHint: first.readHint } : {}),
        attempt: firstAttempt(run.runId),
      });
      if (parked.next !== 'await_approval') throw new Error(`the parking turn answered ${parked.next}`);
    });
  }
  // Warmed up once: the container then holds the gated workflow's version, as one serving the workflow would.
  await parkElsewhere(async (step) => void (await step()));
  for (let i = 0; i < RUNS; i++) {
    await parkElsewhere(async (step) => {
      const before = snapshot(counts);
      await step();
      add(parkingElsewhere, before, snapshot(counts));
    });
  }
  await parkElsewhere(async (step) => {
    const { log } = await recorder.record(step);
    gatedRequests.push({
      phase:
        'parking turn, not the run’s first, on another container than the previous turn’s (not in the totals)',
      requests: log.map((entry) => `${entry.command} ${entry.items.join(', ')}`.trim()).join(' → '),
    });
  });
  const gatedTally = Object.values(phases).reduce(
    (sum, t) => ({
      turns: RUNS,
      reads: sum.reads + t.reads,
      writes: sum.writes + t.writes,
      items: sum.items + t.items,
      toolWrites: sum.toolWrites + t.toolWrites,
    }),
    tally(),
  );
  const requests = (t: Tally) => ((t.reads + t.writes) / RUNS).toFixed(1);

  printTable(`DynamoDB requests per turn (${RUNS} runs of ${TURNS} turns; a transaction is one request)`, [
    { turn: 'plain (1 allowed tool call)', ...perTurn(toolTurns) },
    { turn: 'final (end_turn, run done)', ...perTurn(finalTurns) },
    { turn: 'all turns (average)', ...perTurn(allTurns) },
    { turn: 'floor (1 GetItem + 1 TransactWriteItems)', ...perTurn(floorTally) },
    { turn: 'ledger floor (the invariants’ writes, bare; bench/floor.ts)', ...perTurn(ledgerTally) },
    {
      turn: 'plain, on another container than the previous turn’s (turn 3; not in the average)',
      ...perTurn(plainElsewhere),
    },
  ]);
  printTable(
    `Gated turn: parking turn, RequestApproval, the approval page and decision through the approval HTTP app, resume; 2 model calls (${RUNS} runs)`,
    [
      ...Object.entries(phases).map(([phase, t]) => ({
        phase,
        'requests (reads + transactions)': requests(t),
        ...perTurn({ ...t, turns: RUNS }),
      })),
      {
        phase: 'gated turn (all phases)',
        'requests (reads + transactions)': requests(gatedTally),
        ...perTurn(gatedTally),
      },
      {
        phase:
          'parking turn, not the run’s first, on another container than the previous turn’s (not in the totals)',
        'requests (reads + transactions)': requests(parkingElsewhere),
        ...perTurn({ ...parkingElsewhere, turns: RUNS }),
      },
      {
        phase: 'gated turn (all phases) with that parking turn instead',
        'requests (reads + transactions)': (
          (gatedTally.reads +
            gatedTally.writes -
            requesting!.reads -
            requesting!.writes +
            parkingElsewhere.reads +
            parkingElsewhere.writes) /
          RUNS
        ).toFixed(1),
      },
    ],
  );
  printTable('One gated turn: its DynamoDB requests by phase, in the order they went out', gatedRequests);
  const runtimeCpu = cpu.runtime / turnsRun;
  const floorCpu = cpu.floor / floorTally.turns;
  const ledgerCpu = cpu.ledger / ledgerTally.turns;
  printTable(`Time per turn, zero-latency scripted model, DynamoDB Local (${RUNS * TURNS} turns each)`, [
    {
      loop: 'runtime (gates, ledger, budget, audit, DynamoDB)',
      'ms/turn': runtimeMs.toFixed(2),
      'CPU ms/turn': runtimeCpu.toFixed(2),
    },
    {
      loop: 'durable floor (bare SDK + 1 GetItem + 1 TransactWriteItems)',
      'ms/turn': floorMs.toFixed(2),
      'CPU ms/turn': floorCpu.toFixed(2),
    },
    {
      loop: 'bare SDK, no persistence',
      'ms/turn': bareMs.toFixed(2),
      'CPU ms/turn': (cpu.bare / bareTurns).toFixed(2),
    },
    {
      loop: 'runtime ÷ floor',
      'ms/turn': `${(runtimeMs / floorMs).toFixed(2)}×`,
      'CPU ms/turn': `${(runtimeCpu / floorCpu).toFixed(2)}×`,
    },
    {
      loop: 'runtime overhead over the floor per turn',
      'ms/turn': (runtimeMs - floorMs).toFixed(2),
      'CPU ms/turn': (runtimeCpu - floorCpu).toFixed(2),
    },
    {
      loop: 'of which the tool’s own write (notes_append UpdateItem)',
      'ms/turn': toolMs.toFixed(2),
      'CPU ms/turn': '',
    },
    {
      loop: 'runtime without the tool’s write ÷ floor (tools answered in memory)',
      'ms/turn': `${((runtimeMs - toolMs) / floorMs).toFixed(2)}×`,
      'CPU ms/turn': '',
    },
    {
      loop: 'ledger floor (pending row before the call, the tool’s write, settle; each with run and audit)',
      'ms/turn': ledgerMs.toFixed(2),
      'CPU ms/turn': ledgerCpu.toFixed(2),
    },
    {
      loop: 'ledger floor ÷ floor (what the invariants’ writes cost)',
      'ms/turn': `${(ledgerMs / floorMs).toFixed(2)}×`,
      'CPU ms/turn': `${(ledgerCpu / floorCpu).toFixed(2)}×`,
    },
    {
      loop: 'runtime ÷ ledger floor (what the runtime adds to them)',
      'ms/turn': `${(runtimeMs / ledgerMs).toFixed(2)}×`,
      'CPU ms/turn': `${(runtimeCpu / ledgerCpu).toFixed(2)}×`,
    },
  ]);

  // What the requests alone cost on this DynamoDB Local, and the least a turn made only of them can take: the
  // runtime ÷ floor goal read against what the invariants' requests cost before any CPU of the runtime's own.
  const costs = await measureRequestCosts(store, 200);
  printTable(
    'What each request costs on this DynamoDB Local (alone, interleaved, median of 200)',
    REQUEST_KINDS.map((kind) => ({ request: kind, ms: costs[kind].toFixed(2) })),
  );
  const leasts = leastTurns(costs, bareMs);
  const floorParts = leasts[0]?.ms ?? Number.NaN;
  printTable('The least a turn can take: a bare model call and only the requests named, no other CPU', [
    ...leasts.map((least) => ({
      turn: least.toolWrite ? least.turn : `${least.turn}; tools answered in memory`,
      'ms/turn': least.ms.toFixed(2),
      '÷ the floor’s parts': `${(least.ms / floorParts).toFixed(2)}×`,
      '÷ floor (measured)': `${(least.ms / floorMs).toFixed(2)}×`,
    })),
    {
      turn: 'measured: the runtime without the tool’s write',
      'ms/turn': (runtimeMs - toolMs).toFixed(2),
      '÷ the floor’s parts': '',
      '÷ floor (measured)': `${((runtimeMs - toolMs) / floorMs).toFixed(2)}×`,
    },
  ]);

  // Where a plain turn's time goes: its requests in order (turn 3 of a fresh run, a typical plain turn),
  // then the CPU of a batch of runs by package/module. After the timings, so profiling does not weigh on them.
  const profiled = (await seedRun(store, version)).runId;
  const deps = loopDeps;
  let pointer = { runId: profiled, turn: 0, segmentStartTurn: 0 };
  for (let turn = 0; turn < 3; turn++) {
    const outcome = await runTurn(deps, { ...pointer, attempt: firstAttempt(profiled) });
    pointer = { ...pointer, turn: outcome.turn };
  }
  const plain = await recorder.record(() => runTurn(deps, { ...pointer, attempt: firstAttempt(profiled) }));
  printRequestProfile(
    'One plain turn (turn 3): DynamoDB requests in the order they went out',
    plain.log,
    plain.ms,
  );
  printRequestBytes(
    'That turn’s request bodies by request and transaction item (marshalled JSON)',
    plain.log,
  );
  // The same turn on another container than the previous turn's, given the state the previous turn left.
  const moved = (await seedRun(store, version)).runId;
  let next: TurnInput = { runId: moved, turn: 0, segmentStartTurn: 0 };
  for (let turn = 0; turn < 3; turn++) {
    const outcome = await runTurn(deps, { ...next, attempt: firstAttempt(moved) });
    next = {
      runId: moved,
      turn: outcome.turn,
      segmentStartTurn: 0,
      ...(outcome.next === 'continue' && outcome.readHint ? { readHint: outcome.readHint } : {}),
    };
  }
  const there = engineDeps(turnElsewhere, model('loop'));
  const elsewhereTurn = await recorder.record(() =>
    runTurn(there, { ...next, attempt: firstAttempt(moved) }),
  );
  printRequestProfile(
    'One plain turn (turn 3) on another container than the previous turn’s: DynamoDB requests in the order they went out',
    elsewhereTurn.log,
    elsewhereTurn.ms,
  );
  // Where the CPU goes, the runtime beside the ledger floor (the same requests with bare items): their
  // difference per bucket is what the runtime's code and its larger items add to the invariants' writes.
  const cpuRuns = 5;
  const runIds = await Promise.all(
    Array.from({ length: cpuRuns }, async () => (await seedRun(store, version)).runId),
  );
  const sent = requestBytes(store);
  await printCpuProfiles(
    `CPU by where it was spent, ms per turn (${cpuRuns} runs × ${TURNS} turns each, sampled)`,
    [
      {
        label: 'runtime',
        turns: cpuRuns * TURNS,
        run: async () => {
          for (const runId of runIds) await driveRun(loopDeps, runId);
        },
      },
      {
        label: 'ledger floor',
        turns: cpuRuns * TURNS,
        run: async () => {
          await ledgerFloorLoop(store, client, { runs: cpuRuns, turns: TURNS });
        },
      },
    ],
    sent.get,
  );
} finally {
  await server.close();
  await bench.stop();
}
