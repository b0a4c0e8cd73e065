/**
 * The per-request and per-CPU-category profile of a plain turn, for `npm run bench:turn`: every DynamoDB
 * request of one turn in order (its items by kind, its time, its body's bytes, and whether it overlapped the one
 * before, i.e. went out in parallel), the bytes of those bodies by request and transaction item, then where the process's CPU went over a batch of turns (V8's sampling profiler,
 * self time by the package or module a function belongs to). Prints tables; asserts nothing.
 */
import { Session } from 'node:inspector/promises';
import type { DynamoStore } from '../shared/store/index.ts';
import { printTable } from './support.ts';

/**
 * One request: its command, its items by kind, its time, and the bytes of its HTTP body, whole and (for a
 * transaction) per item, as DynamoDB received them (marshalled JSON).
 */
type Recorded = {
  command: string;
  items: string[];
  start: number;
  end: number;
  bytes: number;
  itemBytes: number[];
};

/** Where the body middleware finds the request's entry: the context both steps of one command share. */
const RECORDED = Symbol('benchRecorded');

/**
 * The kind of an item by its sort key (`AUD#000000012` → `AUD`, `RUN` → `RUN`, `DAY#…` → `DAY`); an item whose
 * partition names its kind and whose sort key is a time (`PENDINGRUN#<hour>`, shared/store/pending-runs.ts) by
 * its partition key.
 */
function kindOf(key: Record<string, unknown> | undefined): string {
  // Marshalled (`{ S: 'RUN' }`) or not, depending on the command.
  const text = (value: unknown) =>
    String((typeof value === 'object' && value !== null ? (value as { S?: string }).S : value) ?? '?');
  const pk = text(key?.pk);
  if (pk.startsWith('PENDINGRUN#')) return 'PENDINGRUN';
  return text(key?.sk).split('#')[0] ?? '?';
}

/**
 * What a Query read, by its key condition: a prefix (`TOOL# prefix`) or a range of the run's partition
 * (`MSG#…RUN range`: the run with its transcript, shared/store/run-with-messages.ts).
 */
function queryLabel(input: Record<string, unknown>): string {
  const values = (input.ExpressionAttributeValues ?? {}) as Record<string, string | { S?: string }>;
  const text = (value: string | { S?: string } | undefined) =>
    String((typeof value === 'object' ? value.S : value) ?? '?');
  if (values[':from'] !== undefined) return `${text(values[':from'])}…${text(values[':to'])} range`;
  return `${kindOf({ sk: values[':prefix'] })}# prefix`;
}

function itemsOf(input: Record<string, unknown>): string[] {
  const actions = (input.TransactItems ?? []) as Record<string, { Item?: never; Key?: never }>[];
  return actions.map((action) => {
    const [verb, body] = Object.entries(action)[0] ?? ['?', {}];
    return `${verb === 'ConditionCheck' ? 'Check' : verb} ${kindOf(body?.Item ?? body?.Key)}`;
  });
}

/** The kinds of the items a BatchGetItem asks for (`APR, RUN, WF`). */
function batchKeysOf(input: Record<string, unknown>): string[] {
  const tables = Object.values((input.RequestItems ?? {}) as Record<string, { Keys?: never[] }>);
  return tables.flatMap((table) => (table.Keys ?? []).map((key) => kindOf(key)));
}

/** Records every request the stores send while `recording` is on (several: one per container). */
export function requestRecorder(...stores: DynamoStore[]) {
  const log: Recorded[] = [];
  let recording = false;
  for (const store of stores)
    store.ctx.doc.middlewareStack.add(
      (next, context) => async (args) => {
        if (!recording) return next(args);
        const input = args.input as Record<string, unknown>;
        const entry: Recorded = {
          command: String(context.commandName).replace(/Command$/, ''),
          items: itemsOf(input),
          start: performance.now(),
          end: 0,
          bytes: 0,
          itemBytes: [],
        };
        (context as { [RECORDED]?: Recorded })[RECORDED] = entry;
        if (entry.command === 'Query') entry.items = [queryLabel(input)];
        if (entry.command === 'GetItem' || entry.command === 'UpdateItem')
          entry.items = [kindOf(input.Key as never)];
        if (entry.command === 'BatchGetItem') entry.items = batchKeysOf(input);
        try {
          return await next(args);
        } finally {
          entry.end = performance.now();
          log.push(entry);
        }
      },
      { step: 'initialize', name: 'benchProfileRecorder' },
    );
  for (const store of stores)
    store.ctx.doc.middlewareStack.add(
      (next, context) => async (args) => {
        const entry = (context as { [RECORDED]?: Recorded })[RECORDED];
        if (entry) {
          const text = bodyText((args.request as { body?: unknown }).body);
          entry.bytes = Buffer.byteLength(text);
          // Each action as it sits in the body (the SDK's JSON is compact, as JSON.stringify writes it).
          const actions = (JSON.parse(text || '{}') as { TransactItems?: unknown[] }).TransactItems ?? [];
          entry.itemBytes = actions.map((action) => Buffer.byteLength(JSON.stringify(action)));
        }
        return next(args);
      },
      { step: 'finalizeRequest', name: 'benchProfileBodies' },
    );
  return {
    async record<T>(run: () => Promise<T>): Promise<{ value: T; log: Recorded[]; ms: number }> {
      log.length = 0;
      recording = true;
      const start = performance.now();
      try {
        const value = await run();
        return { value, log: [...log].sort((a, b) => a.start - b.start), ms: performance.now() - start };
      } finally {
        recording = false;
      }
    },
  };
}

/**
 * Milliseconds spent in one command while `on`: the tool's own write (notes_append's UpdateItem) is the
 * action's cost, which the floor (tools answered in memory) does not pay.
 */
export function commandTimer(store: DynamoStore, command: string) {
  const state = { on: false, ms: 0 };
  store.ctx.doc.middlewareStack.add(
    (next, context) => async (args) => {
      if (!state.on || context.commandName !== command) return next(args);
      const start = performance.now();
      try {
        return await next(args);
      } finally {
        state.ms += performance.now() - start;
      }
    },
    { step: 'initialize', name: `benchTimer${command}` },
  );
  return state;
}

/** A request body as text: the JSON codec's own Uint8Array or a string, depending on the serializer. */
function bodyText(body: unknown): string {
  if (body instanceof Uint8Array)
    return Buffer.from(body.buffer, body.byteOffset, body.byteLength).toString();
  return typeof body === 'string' ? body : '';
}

/**
 * Prints the bytes of one turn's request bodies by what they carry: each transaction item by its action and
 * kind (`Update RUN`, `Put AUD`, …), the rest of each transaction (its envelope: table names, conditions'
 * framing), and each other request whole.
 */
export function printRequestBytes(title: string, log: Recorded[]): void {
  const rows = new Map<string, { count: number; bytes: number }>();
  const add = (what: string, bytes: number) => {
    const row = rows.get(what) ?? { count: 0, bytes: 0 };
    row.count += 1;
    row.bytes += bytes;
    rows.set(what, row);
  };
  for (const entry of log) {
    if (!entry.command.startsWith('TransactWrite')) {
      add(`${entry.command} ${entry.items.join(', ')}`.trim(), entry.bytes);
      continue;
    }
    for (const [index, item] of entry.items.entries()) add(`  ${item}`, entry.itemBytes[index] ?? 0);
    add(
      '  TransactWriteItems envelope',
      entry.bytes - entry.itemBytes.reduce((sum, bytes) => sum + bytes, 0),
    );
  }
  const total = log.reduce((sum, entry) => sum + entry.bytes, 0);
  printTable(title, [
    ...[...rows].map(([what, row]) => ({
      'request or item': what,
      count: row.count,
      bytes: row.bytes,
      share: `${((100 * row.bytes) / total).toFixed(1)}%`,
    })),
    { 'request or item': 'all request bodies of the turn', count: log.length, bytes: total, share: '100%' },
  ]);
}

/** Prints one turn's requests in the order they went out, with the serial (critical-path) time. */
export function printRequestProfile(title: string, log: Recorded[], turnMs: number): void {
  let lastEnd = Number.NEGATIVE_INFINITY;
  let waitMs = 0;
  let roundTrips = 0;
  const rows = log.map((entry, index) => {
    const parallel = entry.start < lastEnd;
    if (!parallel) roundTrips += 1;
    // Time on the critical path: the part of this request not overlapped by an earlier one.
    waitMs += Math.max(0, entry.end - Math.max(entry.start, lastEnd));
    lastEnd = Math.max(lastEnd, entry.end);
    const counts = new Map<string, number>();
    for (const item of entry.items) counts.set(item, (counts.get(item) ?? 0) + 1);
    return {
      '#': index + 1,
      request: entry.command,
      items: [...counts].map(([kind, n]) => (n > 1 ? `${n}× ${kind}` : kind)).join(', '),
      'transact items': entry.command.startsWith('TransactWrite') ? entry.items.length : '',
      'serial?': parallel ? 'parallel with previous' : 'serial',
      ms: (entry.end - entry.start).toFixed(2),
      'body bytes': entry.bytes,
    };
  });
  printTable(title, rows);
  printTable('That turn: round trips on the critical path and time outside DynamoDB', [
    { measure: 'requests', value: log.length },
    { measure: 'serial round trips', value: roundTrips },
    { measure: 'ms waiting on DynamoDB (critical path)', value: waitMs.toFixed(2) },
    { measure: 'ms of the turn outside DynamoDB (CPU, model call)', value: (turnMs - waitMs).toFixed(2) },
    { measure: 'ms the turn took', value: turnMs.toFixed(2) },
  ]);
}

type ProfileNode = { id: number; callFrame: { url: string; functionName: string }; hitCount?: number };

/** The bucket a sampled function's self time goes to: by package, or by the runtime's own module. */
function bucketOf(url: string, functionName: string): string {
  if (url === '') {
    if (functionName === '(idle)') return '(idle: waiting on I/O)';
    if (functionName === '(garbage collector)') return '(garbage collector)';
    return '(V8 / native)';
  }
  const pkg = url.match(/node_modules\/((?:@[^/]+\/)?[^/]+)/)?.[1];
  if (pkg) {
    if (pkg.startsWith('@aws-sdk') || pkg.startsWith('@smithy') || pkg === '@aws-crypto')
      return 'AWS SDK (marshalling, HTTP, signing)';
    if (pkg === 'zod') return 'zod (parsing)';
    if (pkg === 'canonicalize') return 'canonical JSON (audit sealing)';
    if (pkg.startsWith('@anthropic-ai')) return 'Anthropic SDK';
    return `package ${pkg}`;
  }
  if (url.includes('/shared/model/scripted')) return 'scripted model server (the bench’s, not the runtime’s)';
  if (url.includes('/shared/audit/')) return 'audit sealing (shared/audit)';
  if (url.includes('/shared/store/')) return 'store (item assembly, shared/store)';
  if (url.includes('/shared/core/')) return 'core (shared/core)';
  if (url.includes('/shared/')) return 'other runtime code (shared/)';
  if (url.startsWith('node:')) return 'Node built-ins (http, crypto, streams)';
  return 'other';
}

/** Bytes of the HTTP request bodies `store`'s DynamoDB client sends while counting (marshalled items and keys). */
export function requestBytes(store: DynamoStore) {
  let bytes = 0;
  store.ctx.doc.middlewareStack.add(
    (next) => async (args) => {
      const body = (args.request as { body?: unknown }).body;
      // Bytes (the JSON codec's own Uint8Array) or a string, depending on the protocol's serializer.
      if (body instanceof Uint8Array) bytes += body.byteLength;
      else if (typeof body === 'string') bytes += Buffer.byteLength(body);
      return next(args);
    },
    { step: 'finalizeRequest', name: 'benchRequestBytes' },
  );
  return { get: () => bytes };
}

/** A loop to profile: its column label, the turns it drives, and the drive. */
export type ProfiledLoop = { label: string; turns: number; run: () => Promise<void> };

async function sampledSelfTime(run: () => Promise<void>) {
  const session = new Session();
  session.connect();
  await session.post('Profiler.enable');
  await session.post('Profiler.setSamplingInterval', { interval: 200 });
  await session.post('Profiler.start');
  const cpu = process.cpuUsage();
  await run();
  const used = process.cpuUsage(cpu);
  const { profile } = (await session.post('Profiler.stop')) as {
    profile: { nodes: ProfileNode[]; samples: number[]; timeDeltas: number[] };
  };
  session.disconnect();
  const nodes = new Map(profile.nodes.map((node) => [node.id, node]));
  const buckets = new Map<string, number>();
  for (const [index, id] of profile.samples.entries()) {
    const node = nodes.get(id);
    const bucket = node ? bucketOf(node.callFrame.url, node.callFrame.functionName) : 'other';
    buckets.set(bucket, (buckets.get(bucket) ?? 0) + (profile.timeDeltas[index] ?? 0) / 1000);
  }
  return { buckets, cpuMs: (used.user + used.system) / 1000 };
}

/**
 * Samples the CPU while each loop runs (one after the other) and prints self time per bucket and per turn, a
 * column per loop and, for two loops, the first's minus the second's; then the process's CPU and the bytes
 * `sent` reports for each. Buckets in the first loop's order, largest first.
 */
export async function printCpuProfiles(
  title: string,
  loops: readonly ProfiledLoop[],
  sent: () => number,
): Promise<void> {
  type Profiled = { loop: ProfiledLoop; buckets: Map<string, number>; cpuMs: number; bytes: number };
  const profiles: Profiled[] = [];
  for (const loop of loops) {
    const before = sent();
    const { buckets, cpuMs } = await sampledSelfTime(loop.run);
    profiles.push({ loop, buckets, cpuMs, bytes: sent() - before });
  }
  const names = [...new Set(profiles.flatMap((profile) => [...profile.buckets.keys()]))];
  const perTurn = (profile: Profiled, bucket: string) =>
    (profile.buckets.get(bucket) ?? 0) / profile.loop.turns;
  const first = profiles[0]!;
  names.sort((a, b) => perTurn(first, b) - perTurn(first, a));
  const row = (label: string, values: number[], digits: number) => {
    const cells: Record<string, string> = { 'self time in': label };
    for (const [index, profile] of profiles.entries())
      cells[profile.loop.label] = values[index]!.toFixed(digits);
    if (values.length === 2) cells.difference = (values[0]! - values[1]!).toFixed(digits);
    return cells;
  };
  const rows = names.map((bucket) =>
    row(
      bucket,
      profiles.map((profile) => perTurn(profile, bucket)),
      2,
    ),
  );
  rows.push(
    row(
      'process CPU (user + system, all threads)',
      profiles.map((profile) => profile.cpuMs / profile.loop.turns),
      2,
    ),
  );
  rows.push(
    row(
      'bytes sent to DynamoDB (request bodies)',
      profiles.map((profile) => profile.bytes / profile.loop.turns),
      0,
    ),
  );
  printTable(title, rows);
}
