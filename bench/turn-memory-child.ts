/**
 * The child process of `npm run bench:turn-memory`: a fresh Node.js process that loads the Turn handler (the
 * synthesized bundle, or functions/turn.ts) as Lambda would and invokes it turn after turn, as the state
 * machine would in one warm container, until the run leaves the loop. It prints one line,
 * `RESULT {json}`: peak resident memory (`VmHWM`, KiB) after the import and at the
 * end, the turns run, and CPU milliseconds (user + system, `process.cpuUsage()`) of the import and of the turns. Everything else on stdout is the handler's own logging.
 *
 * argv: <handler file URL> <runId>[,<runId>...] [--no-invoke]: several runs one after the other, as one warm
 * container serves them (the transcript cache then holds the earlier runs' messages).
 */
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';

type Handler = (event: unknown, context: unknown) => Promise<{ next: string; turn: number; runId: string }>;

/** As Lambda loads a handler file: `.mjs` imported, `.js` required, TypeScript (source mode) imported. */
async function load(url: string): Promise<{ handler: Handler }> {
  if (url.endsWith('.js')) return createRequire(import.meta.url)(new URL(url).pathname);
  return import(url);
}

const [url, runIds, flag] = process.argv.slice(2);
if (!url || !runIds)
  throw new Error('usage: turn-memory-child <handler url> <runId>[,<runId>...] [--no-invoke]');
/**
 * This process's peak resident memory, KiB: the kernel's high-water mark of its own memory (`VmHWM`,
 * https://man7.org/linux/man-pages/man5/proc_pid_status.5.html). Not `process.resourceUsage().maxRSS`: Linux
 * keeps that across `execve`, so a child forked from the bench starts at the bench's own resident size.
 */
function peakKb(): number {
  const hwm = /^VmHWM:\s+(\d+) kB$/m.exec(readFileSync('/proc/self/status', 'utf8'));
  if (!hwm) throw new Error('no VmHWM in /proc/self/status (Linux only)');
  return Number(hwm[1]);
}

const { handler } = await load(url);
const afterImportKb = peakKb();
const cpuMs = (usage: NodeJS.CpuUsage) => (usage.user + usage.system) / 1000;
const importCpu = process.cpuUsage();

let turns = 0;
let next = 'not invoked';
for (const runId of flag === '--no-invoke' ? [] : runIds.split(',')) {
  let pointer = { runId, turn: 0, segmentStartTurn: 0 };
  for (;;) {
    const context = {
      awsRequestId: `bench-${turns}`,
      functionName: 'Turn',
      functionVersion: '$LATEST',
      memoryLimitInMB: '256',
      invokedFunctionArn: 'arn:aws:lambda:us-east-1:000000000000:function:Turn',
      getRemainingTimeInMillis: () => 900_000,
    };
    const attempt = {
      retryCount: 0,
      redriveCount: 0,
      executionId: 'arn:aws:states:us-east-1:0:execution:b:1',
    };
    const outcome = await handler({ ...pointer, attempt }, context);
    turns += 1;
    next = outcome.next;
    if (next !== 'continue') break;
    pointer = { runId: outcome.runId, turn: outcome.turn, segmentStartTurn: 0 };
  }
}
const turnsCpuMs = cpuMs(process.cpuUsage(importCpu));
const memory = process.memoryUsage();
console.log(
  `RESULT ${JSON.stringify({
    afterImportKb,
    importCpuMs: cpuMs(importCpu),
    turnsCpuMs,
    peakKb: peakKb(),
    rssAtEnd: memory.rss,
    heapUsedAtEnd: memory.heapUsed,
    turns,
    next,
  })}`,
);
process.exit(0);
