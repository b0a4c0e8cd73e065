/**
 * `wf console --aws --url <ApiUrl>`: serves the web console for a deployed stack on this machine's loopback
 * (shared/console/aws-proxy.ts). Locally there is nothing to start: `wf local up` serves it at /console.
 */
import { type ServerType, serve } from '@hono/node-server';
import { Hono } from 'hono';
import { awsConsoleApp, newConsoleToken } from '../console/aws-proxy.ts';
import { allowedHosts, hostGuard } from '../local/host-guard.ts';
import { UsageError } from './commands.ts';
import { clientFrom } from './config.ts';

export type ConsoleCommandArgs = {
  aws: boolean;
  url: string | undefined;
  region?: string;
  requestTimeout?: string;
  port?: number;
  env: NodeJS.ProcessEnv;
  print: (text: string) => void;
  /** Stops the server as Ctrl-C does (a test's signal). */
  signal?: AbortSignal;
};

/** Starts the loopback console server; resolves once it listens (`close` stops it). */
export async function startAwsConsole(args: Omit<ConsoleCommandArgs, 'aws' | 'print'>) {
  if (!args.url) throw new UsageError('missing --url (or WF_URL): the deployed stack’s ApiUrl output');
  const client = clientFrom(
    {
      url: args.url,
      aws: true,
      ...(args.region ? { region: args.region } : {}),
      ...(args.requestTimeout ? { requestTimeout: args.requestTimeout } : {}),
    },
    args.env,
  );
  const token = newConsoleToken();
  const server: ServerType = await new Promise((resolve, reject) => {
    const app = new Hono();
    const started = serve({ fetch: app.fetch, port: args.port ?? 8788, hostname: '127.0.0.1' }, (info) => {
      const origin = `http://127.0.0.1:${info.port}`;
      app.use('*', hostGuard(allowedHosts(info.port)));
      app.route('/', awsConsoleApp({ client, token, clock: { nowMs: () => Date.now() }, origin }));
      resolve(started);
    });
    started.once('error', reject);
  });
  const address = server.address();
  const port = typeof address === 'object' && address ? address.port : 0;
  const close = () => new Promise<void>((resolve) => server.close(() => resolve()));
  return { url: `http://127.0.0.1:${port}/console`, token, close };
}

export async function consoleCommand(args: ConsoleCommandArgs): Promise<number> {
  if (!args.aws) {
    args.print(
      'The local stack serves the console itself: run `wf local up` and open http://127.0.0.1:8787/console',
    );
    return 2;
  }
  const proxy = await startAwsConsole(args);
  args.print(
    [
      `wf console for ${args.url} on ${proxy.url} (loopback only; API calls signed with your AWS credentials)`,
      `  sign-in token: ${proxy.token}`,
      'Ctrl-C stops it.',
    ].join('\n'),
  );
  let stop = () => {};
  await new Promise<void>((resolve) => {
    stop = resolve;
    process.once('SIGINT', stop);
    process.once('SIGTERM', stop);
    if (args.signal?.aborted) resolve();
    args.signal?.addEventListener('abort', stop, { once: true });
  });
  process.off('SIGINT', stop);
  process.off('SIGTERM', stop);
  await proxy.close();
  return 0;
}
