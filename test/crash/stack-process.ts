/**
 * The local stack in a process of its own, for the crash test to SIGKILL (with its DynamoDB Local, which is
 * in the same process group). Configuration in `WF_CRASH_STACK` (JSON); prints `READY <json>` once it serves.
 */
import { flushCompileCache } from 'node:module';
import { startLocalStack } from '../../shared/local/stack.ts';

type Config = {
  dataDir: string;
  port: number;
  scriptedModelUrl: string;
  allowLoopbackPorts: number[];
  internalHosts: string[];
};

const config = JSON.parse(process.env.WF_CRASH_STACK ?? '{}') as Config;
const stack = await startLocalStack({
  dataDir: config.dataDir,
  port: config.port,
  scriptedModelUrl: config.scriptedModelUrl,
  allowLoopbackPorts: config.allowLoopbackPorts,
  internalHosts: config.internalHosts,
  schedulerIntervalMs: 0,
  retryIntervalMs: 20,
  print: () => undefined,
});
const ready = {
  url: stack.url,
  apiKey: stack.apiKey,
  resumed: stack.resumed,
  delivered: stack.delivered,
};
// The compile cache (NODE_COMPILE_CACHE, set by support.ts) is written at exit, and a life ends in SIGKILL:
// write it now, so the next life loads the stack's modules compiled.
flushCompileCache();
process.stdout.write(`READY ${JSON.stringify(ready)}\n`);
// Served until killed (or stopped politely on SIGTERM).
process.once('SIGTERM', () => {
  void stack.stop().then(() => process.exit(0));
});
