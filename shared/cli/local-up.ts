/** `wf local up`: the whole runtime on this machine until Ctrl-C. */
import { FixtureEngine } from '../external/fixture-engine/index.ts';
import { startLocalStack } from '../local/stack.ts';

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
  env: NodeJS.ProcessEnv;
  print: (text: string) => void;
}): Promise<number> {
  const apiKey = options.env.ANTHROPIC_API_KEY;
  // WF_FIXTURE_ENGINE=1: the deterministic fixture engine runs too, enabled as `http-runtime` (external demos).
  const fixture = options.env.WF_FIXTURE_ENGINE === '1' ? await startDemoEngine() : undefined;
  const loopback = (options.env.WF_ALLOW_LOOPBACK_PORTS ?? '').split(',').filter(Boolean).map(Number);
  const stack = await startLocalStack({
    ...(options.port !== undefined ? { port: options.port } : {}),
    ...(options.dataDir ? { dataDir: options.dataDir } : {}),
    ...(apiKey ? { anthropicApiKey: apiKey } : {}),
    allowLoopbackPorts: fixture ? [...loopback, fixture.port] : loopback,
    ...(fixture
      ? { externalEngines: { 'http-runtime': { enabled: true, settings: { endpoint: fixture.url } } } }
      : {}),
    print: options.print,
  });
  options.print(
    [
      `wf local stack on ${stack.url}`,
      `  API key (owner '${stack.owner}'): ${stack.apiKey}   (also in ${stack.files.apiKeys})`,
      `  approval inbox: ${stack.url}/local/inbox`,
      `  model: ${apiKey ? 'Claude (ANTHROPIC_API_KEY)' : `scripted Messages-API server at ${stack.modelUrl}`}`,
      `  data: ${stack.files.dir}${stack.resumed.length ? `; resumed ${stack.resumed.length} run(s)` : ''}`,
      ...(fixture ? [`  fixture engine (http-runtime): ${fixture.url}`] : []),
      'Ctrl-C stops it; runs resume on the next start.',
    ].join('\n'),
  );
  await new Promise<void>((resolve) => {
    process.once('SIGINT', resolve);
    process.once('SIGTERM', resolve);
  });
  await stack.stop();
  await fixture?.close();
  return 0;
}
