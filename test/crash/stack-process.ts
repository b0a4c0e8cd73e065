/**
 * The local stack in a process of its own, for the crash test to SIGKILL (with its DynamoDB Local, which is
 * in the same process group). Configuration in `WF_CRASH_STACK` (JSON); the state machines it runs are the test
 * run's synthesis (test/setup/local-definitions.ts), read from `definitionsFile`. The process warms first: it
 * imports the stack's modules and reads the definitions (what any process that starts the stack does first, and
 * touches no data), prints `WARM`, and starts the stack on the data only when a line arrives on stdin; then it
 * prints `READY <json>` once it serves. Its stdin closed before that (the test process gone), it exits. Each
 * Step Functions request its endpoint refuses as AWS would is printed at once as `SFN-REFUSAL <json>`.
 */
import { readFileSync, writeSync } from 'node:fs';
import { flushCompileCache } from 'node:module';
import type { LocalDefinitions } from '../../infra/local-definition.ts';
import { startLocalStack } from '../../shared/local/stack.ts';

type Config = {
  dataDir: string;
  port: number;
  scriptedModelUrl: string;
  allowLoopbackPorts: number[];
  internalHosts: string[];
  definitionsFile: string;
};

const config = JSON.parse(process.env.WF_CRASH_STACK ?? '{}') as Config;
const definitions = JSON.parse(readFileSync(config.definitionsFile, 'utf8')) as LocalDefinitions;
// The compile cache (NODE_COMPILE_CACHE, set by support.ts) is written at exit, and a life ends in SIGKILL:
// write it now (and once started, for what starting loaded), so the next life loads the stack's modules compiled.
flushCompileCache();
process.stdout.write('WARM\n');
await new Promise<void>((resolve) => {
  process.stdin.once('data', () => resolve());
  process.stdin.once('end', () => process.exit(0));
});
process.stdin.pause();
const stack = await startLocalStack({
  dataDir: config.dataDir,
  port: config.port,
  scriptedModelUrl: config.scriptedModelUrl,
  allowLoopbackPorts: config.allowLoopbackPorts,
  internalHosts: config.internalHosts,
  schedulerIntervalMs: 0,
  retryIntervalMs: 20,
  print: () => undefined,
  definitions,
  // Written synchronously: the line is in the pipe before a SIGKILL can take the process.
  onSfnRefusal: (refusal) => void writeSync(1, `SFN-REFUSAL ${JSON.stringify(refusal)}\n`),
});
flushCompileCache();
const ready = {
  url: stack.url,
  apiKey: stack.apiKey,
  resumed: stack.resumed,
  delivered: stack.delivered,
};
process.stdout.write(`READY ${JSON.stringify(ready)}\n`);
// Served until killed (or stopped politely on SIGTERM).
process.once('SIGTERM', () => {
  void stack.stop().then(() => process.exit(0));
});
