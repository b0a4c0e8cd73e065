/**
 * npm run bench:turn-memory — the Turn function's peak resident memory, measured on the real thing: a fresh
 * Node.js process per scenario loads the synthesized Turn bundle (a fresh `cdk synth`, or `--from <cloud
 * assembly dir>`; `--source` loads functions/turn.ts instead) and invokes its handler turn after turn, as one
 * warm Lambda container would, against DynamoDB Local and the scripted model server (ANTHROPIC_BASE_URL), the
 * Anthropic key from a loopback stand-in for Secrets Manager. Peak = the child's own high-water mark (`VmHWM`;
 * not `maxRSS`, which Linux carries over from the bench that forked it).
 * Scenarios span the limits: the cost shape, a run of `maxTurns` (200) turns, and the largest transcript a
 * model accepts (about 1M tokens, ~4 MB of text, the largest context window:
 * https://platform.claude.com/docs/en/build-with-claude/context-windows), filled with answers under the
 * runtime's own caps (shared/core/transcript-limits.ts: 2.5 MB per model call). Each row also gives the child's
 * CPU time (`process.cpuUsage()`: the import, and per turn; the model server and DynamoDB Local run in other
 * processes), and the cost shape's CPU is converted to wall time at Lambda's memory-proportional CPU share.
 * Prints tables; asserts nothing. To try other settings: BENCH_NODE_OPTIONS="..." in place of the function's
 * NODE_OPTIONS, BENCH_ENV="NAME=value ..." for more variables, BENCH_ONLY=<regex> for some rows only.
 */
import { execFileSync, spawn } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:http';
import { stripTypeScriptTypes } from 'node:module';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { FUNCTION_SETTINGS } from '../infra/constructs/workflow-runtime-props.ts';
import { MAX_ASSISTANT_CONTENT_BYTES } from '../shared/core/transcript-limits.ts';
import { type ScriptedFixture, startScriptedModelServer } from '../shared/model/index.ts';
import { minimalWorkflow, seedRun, seedWorkflow } from '../test/support/store.ts';
import { functionBundles } from './bundle-assets.ts';
import { benchStore, printTable } from './support.ts';

const repoRoot = new URL('../', import.meta.url).pathname;
const STACK = process.env.BENCH_STACK ?? 'WfRuntime';
const KB = 1024;
const MB = 1024 * KB;
/** About 1M tokens of English text at ~4 bytes per token: the largest context window a model offers. */
const LARGEST_TRANSCRIPT_BYTES = 4 * MB;
/** Lambda's CPU share: one full vCPU at 1,769 MB, in proportion below it. */
const FULL_VCPU_MB = 1769;

/** The Turn handler file and the plain environment the template gives it. */
function turnHandler(): { url: string; env: Record<string, string>; label: string; cleanup: () => void } {
  if (process.argv.includes('--source'))
    return {
      url: pathToFileURL(join(repoRoot, 'functions/turn.ts')).href,
      env: {},
      label: 'functions/turn.ts (source)',
      cleanup: () => {},
    };
  const from = process.argv.indexOf('--from');
  let dir: string;
  let cleanup = () => {};
  if (from >= 0) {
    dir = process.argv[from + 1] ?? '';
    if (!existsSync(dir)) throw new Error('--from needs an existing cloud assembly directory');
  } else {
    dir = mkdtempSync(join(tmpdir(), 'wf-bench-turn-memory-'));
    execFileSync(join(repoRoot, 'node_modules/.bin/cdk'), ['synth', '--quiet', '--output', dir], {
      cwd: repoRoot,
      stdio: ['ignore', 'ignore', 'pipe'],
    });
    cleanup = () => rmSync(dir, { recursive: true, force: true });
  }
  const template = JSON.parse(readFileSync(join(dir, `${STACK}.template.json`), 'utf8'));
  const turn = functionBundles(template, dir).find((bundle) => bundle.name === FUNCTION_SETTINGS.turn.id);
  if (!turn) throw new Error(`no ${FUNCTION_SETTINGS.turn.id} function in ${dir}/${STACK}.template.json`);
  return {
    url: pathToFileURL(turn.entry).href,
    env: turn.env,
    label: 'the synthesized Turn bundle',
    cleanup,
  };
}

/** ASCII prose of exactly `bytes` bytes. */
const filler = (bytes: number) =>
  'The quick brown fox jumps over the lazy dog. '.repeat(bytes / 45 + 1).slice(0, bytes);
const append = (line: string) => ({
  type: 'tool_use' as const,
  name: 'notes_append',
  input: { name: 'log', line },
});
/** `turns` model calls: each but the last writes `textBytes` of text and makes `calls` tool calls. */
const conversation = (turns: number, textBytes: number, calls: number): ScriptedFixture => ({
  turns: [
    ...Array.from({ length: turns - 1 }, (_, t) => ({
      response: {
        content: [
          { type: 'text' as const, text: filler(textBytes) },
          ...Array.from({ length: calls }, (_, c) => append(`step ${t}.${c}`)),
        ],
        usage: { input_tokens: 1000, output_tokens: 100 },
      },
    })),
    { text: 'done' },
  ],
});

/**
 * As deployed (the function's NODE_OPTIONS and other variables) unless: `heap`, V8's old space capped at a size
 * or unbounded (the deployed cap left out); `nodeOptions`, these NODE_OPTIONS instead; `mallocDefaults`,
 * without the function's MALLOC_* variables (glibc's defaults); `plainChild`, the child process as plain
 * JavaScript (its types stripped beforehand) instead of TypeScript, which Node.js strips with a WebAssembly
 * compiler it loads into the process; `runs`, that many runs one after the other in the one process.
 */
type Scenario = {
  name: string;
  fixture?: ScriptedFixture;
  heap?: number | 'unbounded';
  nodeOptions?: string;
  mallocDefaults?: boolean;
  plainChild?: boolean;
  /** Runs of the fixture served one after the other by the same process (a warm container), 1 unless set. */
  runs?: number;
};
/** The Turn's NODE_OPTIONS before #16's measurements: V8's young generation at its default size. */
const BEFORE_OPTIONS = '--max-old-space-size=128';
const perTurnOfLargest = 450 * KB;
const largestTurns = Math.ceil(LARGEST_TRANSCRIPT_BYTES / perTurnOfLargest) + 1;
const SCENARIOS: Scenario[] = [
  { name: 'import only (cold start, no invocation)' },
  { name: 'cost shape: 5 turns, 4 tool calls', fixture: conversation(5, 200, 1) },
  // A turn on a new container: its first invocation after the import (composition, the first calls' warm-up).
  // `wf cost --cold-turns` prices every turn so: this row's CPU per turn, after the import row's CPU.
  { name: 'one turn on a new container: a 1-turn run', fixture: conversation(1, 200, 0) },
  { name: 'long run: 200 turns (maxTurns), 1 tool call and 1 KB each', fixture: conversation(200, KB, 1) },
  {
    name: `largest transcript: ${largestTurns} turns of 450 KB (~4 MB, ~1M tokens)`,
    fixture: conversation(largestTurns, perTurnOfLargest, 1),
  },
  {
    name: 'largest answer: one model call at the 2.5 MB cap, then 2 turns',
    fixture: conversation(3, MAX_ASSISTANT_CONTENT_BYTES - 4 * KB, 1),
  },
  {
    name: `2× the largest transcript: ${2 * largestTurns - 1} turns of 450 KB (~8 MB)`,
    fixture: conversation(2 * largestTurns - 1, perTurnOfLargest, 1),
  },
  // A warm container serves one run after another, and its transcript cache keeps up to 4 MB of item bytes of
  // earlier runs (shared/store/transcript-cache.ts): the third run's turns run beside two runs' worth.
  {
    name: 'warm container: 3 runs of the largest transcript, one after the other',
    fixture: conversation(largestTurns, perTurnOfLargest, 1),
    runs: 3,
  },
  {
    name: 'warm container: 3 runs of the largest answer, one after the other',
    fixture: conversation(3, MAX_ASSISTANT_CONTENT_BYTES - 4 * KB, 1),
    runs: 3,
  },
  // The same runs with V8's old space unbounded (no --max-old-space-size: V8 sizes it from this machine's
  // memory, so it collects late).
  ...(['long run', 'largest transcript'] as const).map((name) => ({
    name: `${name}, V8 old space unbounded`,
    fixture: name === 'long run' ? conversation(200, KB, 1) : conversation(largestTurns, perTurnOfLargest, 1),
    heap: 'unbounded' as const,
  })),
  // The heaviest runs as the Turn was configured before (V8 at its default young generation, the old space at
  // 128 MB, glibc's malloc at its defaults), and with only one of the two changes.
  ...(
    [
      ['as before', { nodeOptions: BEFORE_OPTIONS, mallocDefaults: true }],
      ["with glibc's malloc at its defaults", { mallocDefaults: true }],
      ["with V8's young generation at its default size", { nodeOptions: BEFORE_OPTIONS }],
    ] as const
  ).flatMap(([how, options]) => [
    { name: `long run, ${how}`, fixture: conversation(200, KB, 1), ...options },
    {
      name: `largest answer, ${how}`,
      fixture: conversation(3, MAX_ASSISTANT_CONTENT_BYTES - 4 * KB, 1),
      ...options,
    },
  ]),
  // What the TypeScript child itself costs: the same process as plain JavaScript (as Lambda loads index.js).
  { name: 'import only, the child as plain JavaScript', plainChild: true },
  {
    name: 'largest answer, the child as plain JavaScript',
    fixture: conversation(3, MAX_ASSISTANT_CONTENT_BYTES - 4 * KB, 1),
    plainChild: true,
  },
];

/** A loopback stand-in for Secrets Manager's GetSecretValue (AWS JSON 1.1): the Anthropic key. */
async function startSecrets() {
  const server = createServer((request, response) => {
    let body = '';
    request.on('data', (chunk) => (body += chunk));
    request.on('end', () => {
      const { SecretId } = JSON.parse(body || '{}') as { SecretId?: string };
      response.writeHead(200, { 'content-type': 'application/x-amz-json-1.1' });
      response.end(
        JSON.stringify({
          ARN: SecretId,
          Name: 'wf-anthropic',
          SecretString: 'bench-key',
          VersionId: 'v1',
          VersionStages: ['AWSCURRENT'],
          CreatedDate: 1_700_000_000,
        }),
      );
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as { port: number }).port}`,
    close: () => server.close(),
  };
}

type ChildResult = {
  afterImportKb: number;
  peakKb: number;
  turns: number;
  next: string;
  importCpuMs: number;
  turnsCpuMs: number;
};

const childSource = join(repoRoot, 'bench/turn-memory-child.ts');
let plainChildFile: string | undefined;
/** The child as plain JavaScript: its types stripped into a temporary `.mjs` file. */
function plainChild(): string {
  if (!plainChildFile) {
    const dir = mkdtempSync(join(tmpdir(), 'wf-bench-turn-memory-child-'));
    plainChildFile = join(dir, 'turn-memory-child.mjs');
    writeFileSync(plainChildFile, stripTypeScriptTypes(readFileSync(childSource, 'utf8')));
  }
  return plainChildFile;
}

function runChild(
  childFile: string,
  url: string,
  runId: string,
  env: Record<string, string>,
  invoke: boolean,
) {
  return new Promise<ChildResult | { error: string }>((resolve) => {
    const child = spawn(process.execPath, [childFile, url, runId, ...(invoke ? [] : ['--no-invoke'])], {
      env,
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let out = '';
    let err = '';
    child.stdout.on('data', (chunk) => (out += chunk));
    child.stderr.on('data', (chunk) => (err += chunk));
    child.on('close', (code, signal) => {
      const line = out.split('\n').find((candidate) => candidate.startsWith('RESULT '));
      if (line) resolve(JSON.parse(line.slice('RESULT '.length)) as ChildResult);
      else
        resolve({
          error: `exit ${code ?? signal}: ${err.trim().split('\n').slice(-12).join(' | ').slice(0, 2000)}`,
        });
    });
  });
}

const handlerFile = turnHandler();
const bench = await benchStore();
const secrets = await startSecrets();
const endpoint = await bench.store.ctx.doc.config.endpoint!();
const now = { nowMs: () => Date.now() };
const workflow = minimalWorkflow({
  model: { id: 'claude-sonnet-5-5', maxTokens: 1024 },
  allowedActions: ['notes_append'],
  budget: { maxUsdPerRun: 1000, maxTurns: 200, maxToolCallsPerTurn: 8, runTimeoutSeconds: 7200 },
});
const rows: Record<string, string | number>[] = [];
let costShape: ChildResult | undefined;
try {
  const { version } = await seedWorkflow(bench.store, workflow, { clock: now });
  // BENCH_ONLY=<regex>: only the scenarios whose name matches.
  const only = new RegExp(process.env.BENCH_ONLY ?? '');
  for (const scenario of SCENARIOS.filter((candidate) => only.test(candidate.name))) {
    const server = await startScriptedModelServer({ fixtures: [scenario.fixture ?? conversation(1, 0, 0)] });
    try {
      const runIds: string[] = [];
      for (let count = 0; count < (scenario.runs ?? 1); count++)
        runIds.push((await seedRun(bench.store, version, { clock: now })).runId);
      const runId = runIds.at(-1)!;
      // As deployed: the function's NODE_OPTIONS (the Turn's V8 heap flags); a row's own, or BENCH_NODE_OPTIONS
      // to try others; a row with its own old-space cap replaces that one flag.
      const deployed =
        scenario.nodeOptions ?? process.env.BENCH_NODE_OPTIONS ?? handlerFile.env.NODE_OPTIONS ?? '';
      const options =
        scenario.heap === undefined
          ? [deployed]
          : [
              deployed.replace(/--max-old-space-size=\d+/, ''),
              typeof scenario.heap === 'number' && `--max-old-space-size=${scenario.heap}`,
            ];
      const functionEnv = Object.fromEntries(
        Object.entries(handlerFile.env).filter(
          ([name]) => !(scenario.mallocDefaults && name.startsWith('MALLOC_')),
        ),
      );
      const env: Record<string, string> = {
        PATH: process.env.PATH ?? '',
        ...functionEnv,
        AWS_REGION: 'us-east-1',
        AWS_ACCESS_KEY_ID: 'bench',
        AWS_SECRET_ACCESS_KEY: 'bench',
        // Lambda sets all three for the execution role; the bundle reads them (lambda-credentials.ts).
        AWS_SESSION_TOKEN: 'bench',
        AWS_LAMBDA_FUNCTION_NAME: 'Turn',
        AWS_ENDPOINT_URL_DYNAMODB: `${endpoint.protocol}//${endpoint.hostname}:${endpoint.port}`,
        AWS_ENDPOINT_URL_SECRETS_MANAGER: secrets.url,
        ANTHROPIC_BASE_URL: server.url,
        WF_TABLE_NAME: bench.store.ctx.table,
        WF_ANTHROPIC_SECRET_ARN: 'arn:aws:secretsmanager:us-east-1:000000000000:secret:wf-anthropic-AbCdEf',
        NODE_OPTIONS: options.filter(Boolean).join(' '),
        // BENCH_ENV="NAME=value ...": more variables for the function, to try them.
        ...Object.fromEntries(
          (process.env.BENCH_ENV ?? '')
            .split(' ')
            .filter(Boolean)
            .map((pair) => [pair.slice(0, pair.indexOf('=')), pair.slice(pair.indexOf('=') + 1)]),
        ),
      };
      const result = await runChild(
        scenario.plainChild ? plainChild() : childSource,
        handlerFile.url,
        runIds.join(','),
        env,
        scenario.fixture !== undefined,
      );
      const stored = scenario.fixture ? await bench.store.listMessages(runId) : [];
      const transcriptBytes = stored.reduce(
        (sum, message) => sum + JSON.stringify(message.content).length,
        0,
      );
      rows.push(
        'error' in result
          ? {
              scenario: scenario.name,
              'transcript MB': '-',
              turns: '-',
              'after import MB': '-',
              'peak RSS MB': result.error,
              'import CPU ms': '-',
              'CPU ms per turn': '-',
            }
          : {
              scenario: scenario.name,
              'transcript MB': (transcriptBytes / MB).toFixed(3),
              turns: `${result.turns} (${result.next})`,
              'after import MB': (result.afterImportKb / KB).toFixed(0),
              'peak RSS MB': (result.peakKb / KB).toFixed(0),
              'import CPU ms': result.importCpuMs.toFixed(0),
              'CPU ms per turn': result.turns > 0 ? (result.turnsCpuMs / result.turns).toFixed(1) : '-',
            },
      );
      if (!('error' in result) && scenario.name.startsWith('cost shape')) costShape = result;
      console.log(JSON.stringify(rows.at(-1)));
    } finally {
      await server.close();
    }
  }
  printTable(
    `Turn function peak resident memory (${handlerFile.label}, NODE_OPTIONS "${process.env.BENCH_NODE_OPTIONS ?? handlerFile.env.NODE_OPTIONS ?? ''}", ${
      Object.entries(handlerFile.env)
        .filter(([name]) => name.startsWith('MALLOC_'))
        .map(([name, value]) => `${name}=${value}`)
        .join(' ') || "glibc's malloc defaults"
    }${process.env.BENCH_ENV ? ` ${process.env.BENCH_ENV}` : ''} unless a row says otherwise, node ${process.version}, one fresh process per row; load ${loadavg()[0]!.toFixed(1)})`,
    rows,
  );
  // Lambda allocates CPU in proportion to memory, one full vCPU at 1,769 MB
  // (https://docs.aws.amazon.com/lambda/latest/dg/configuration-memory.html): CPU ms ÷ that share is the wall
  // time (billed) the work takes at a memory setting, on a core as fast as this machine's.
  if (costShape)
    printTable(
      'Cost shape: CPU time as wall time at Lambda memory settings (CPU share = memory ÷ 1,769 MB)',
      [128, 165, 192, 256, 512].map((mb) => {
        const share = mb / FULL_VCPU_MB;
        const perTurn = costShape!.turnsCpuMs / costShape!.turns;
        return {
          'memory MB': mb,
          'vCPU share': share.toFixed(3),
          'cold import ms': (costShape!.importCpuMs / share).toFixed(0),
          'ms per turn (beside the model wait)': (perTurn / share).toFixed(0),
          'GB-s per 5 turns at 8 s model latency': (
            ((5 * (8000 + perTurn / share)) / 1000) *
            (mb / 1024)
          ).toFixed(2),
        };
      }),
    );
} finally {
  secrets.close();
  await bench.stop();
  handlerFile.cleanup();
  if (plainChildFile) rmSync(join(plainChildFile, '..'), { recursive: true, force: true });
}
