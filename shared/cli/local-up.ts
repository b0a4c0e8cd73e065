/** `wf local up`: the whole runtime on this machine until Ctrl-C. */
import { resolve } from 'node:path';
import { FixtureEngine } from '../external/fixture-engine/index.ts';
import { type LocalStack, startLocalStack } from '../local/stack.ts';

/** Where `wf local up` looks for fixtures without --fixtures: `fixtures/` beside the workflow files. */
export const DEFAULT_FIXTURE_DIR = 'fixtures';
const NOTICE_INTERVAL_MS = 2_000;

/** Prints a line for each new run a schedule or an event started (the local owner's). */
function announceTriggeredRuns(stack: LocalStack, print: (text: string) => void): () => void {
  const seen = new Set<string>();
  let first = true;
  const poll = async () => {
    const page = await stack.store.listRuns({ owner: stack.owner, limit: 25 });
    for (const run of [...page.items].reverse()) {
      if (seen.has(run.runId)) continue;
      seen.add(run.runId);
      const type = run.trigger.type;
      if (!first && (type === 'schedule' || type === 'event'))
        print(`${type} started ${run.runId} (${run.workflowName} v${run.workflowVersion})`);
    }
    first = false;
  };
  let stopped = false;
  const loop = async () => {
    while (!stopped) {
      await poll().catch(() => undefined);
      await new Promise((done) => setTimeout(done, NOTICE_INTERVAL_MS).unref());
    }
  };
  void loop();
  return () => {
    stopped = true;
  };
}

/** The fixture engine of demos: every execution runs two observes, then succeeds with `result.json`. */
async function startDemoEngine(): Promise<FixtureEngine> {
  const engine = await FixtureEngine.start();
  engine.script('*', {
    running: 2,
    summary: 'fixture run finished',
    artifacts: [{ path: 'result.json', content: '{"ok":true}\n' }],
  });
  return engine;
}

export async function localUp(options: {
  port?: number;
  dataDir?: string;
  fixtures?: string;
  env: NodeJS.ProcessEnv;
  print: (text: string) => void;
}): Promise<number> {
  const apiKey = options.env.ANTHROPIC_API_KEY;
  const fixtureDir = resolve(options.fixtures ?? DEFAULT_FIXTURE_DIR);
  // WF_FIXTURE_ENGINE=1: the deterministic fixture engine runs too, enabled as `http-runtime` (external demos).
  const fixture = options.env.WF_FIXTURE_ENGINE === '1' ? await startDemoEngine() : undefined;
  const loopback = (options.env.WF_ALLOW_LOOPBACK_PORTS ?? '').split(',').filter(Boolean).map(Number);
  const stack = await startLocalStack({
    ...(options.port !== undefined ? { port: options.port } : {}),
    ...(options.dataDir ? { dataDir: options.dataDir } : {}),
    ...(apiKey ? { anthropicApiKey: apiKey, record: true } : {}),
    ...(options.env.ANTHROPIC_BASE_URL ? { anthropicBaseUrl: options.env.ANTHROPIC_BASE_URL } : {}),
    fixtureDirs: [fixtureDir],
    allowLoopbackPorts: fixture ? [...loopback, fixture.port] : loopback,
    ...(fixture
      ? { externalEngines: { 'http-runtime': { enabled: true, settings: { endpoint: fixture.url } } } }
      : {}),
    print: options.print,
  });
  // Listening before the printout says so: a SIGINT sent as soon as "Ctrl-C stops it" is read stops it cleanly.
  const signal = new Promise<string>((done) => {
    process.once('SIGINT', () => done('Ctrl-C'));
    process.once('SIGTERM', () => done('SIGTERM'));
  });
  options.print(
    [
      `wf local stack on ${stack.url}`,
      `  API key (owner '${stack.owner}'): ${stack.apiKey}   (also in ${stack.files.apiKeys})`,
      `  approval inbox: ${stack.url}/local/inbox`,
      `  web console: ${stack.url}/console (sign in with the API key)`,
      `  model: ${apiKey ? 'Claude (ANTHROPIC_API_KEY; wf run start --record DIR saves a conversation)' : `scripted Messages-API server at ${stack.modelUrl}`}`,
      ...(apiKey ? [] : [`  fixtures: ${fixtureDir} (and examples/fixtures)`]),
      `  data: ${stack.files.dir}${stack.resumed.length ? `; resumed ${stack.resumed.length} run(s)` : ''}`,
      ...(fixture ? [`  fixture engine (http-runtime): ${fixture.url}`] : []),
      'Ctrl-C stops it; runs resume on the next start.',
    ].join('\n'),
  );
  const stopNotices = announceTriggeredRuns(stack, options.print);
  const stoppedBy = await signal;
  stopNotices();
  options.print(`\n${stoppedBy}: stopping the local stack (runs in flight resume on the next wf local up)…`);
  await stack.stop();
  await fixture?.close();
  options.print('stopped.');
  return 0;
}
