/** `wf local up`: the whole runtime on this machine until Ctrl-C. */
import { startLocalStack } from '../local/stack.ts';

export async function localUp(options: {
  port?: number;
  dataDir?: string;
  env: NodeJS.ProcessEnv;
  print: (text: string) => void;
}): Promise<number> {
  const apiKey = options.env.ANTHROPIC_API_KEY;
  const stack = await startLocalStack({
    ...(options.port !== undefined ? { port: options.port } : {}),
    ...(options.dataDir ? { dataDir: options.dataDir } : {}),
    ...(apiKey ? { anthropicApiKey: apiKey } : {}),
    allowLoopbackPorts: (options.env.WF_ALLOW_LOOPBACK_PORTS ?? '').split(',').filter(Boolean).map(Number),
    print: options.print,
  });
  options.print(
    [
      `wf local stack on ${stack.url}`,
      `  API key (owner '${stack.owner}'): ${stack.apiKey}   (also in ${stack.files.apiKeys})`,
      `  approval inbox: ${stack.url}/local/inbox`,
      `  web console: ${stack.url}/console (sign in with the API key)`,
      `  model: ${apiKey ? 'Claude (ANTHROPIC_API_KEY)' : `scripted Messages-API server at ${stack.modelUrl}`}`,
      `  data: ${stack.files.dir}${stack.resumed.length ? `; resumed ${stack.resumed.length} run(s)` : ''}`,
      'Ctrl-C stops it; runs resume on the next start.',
    ].join('\n'),
  );
  await new Promise<void>((resolve) => {
    process.once('SIGINT', resolve);
    process.once('SIGTERM', resolve);
  });
  await stack.stop();
  return 0;
}
