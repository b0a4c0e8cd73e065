/**
 * Runs the scripted Messages-API server from fixture files, for offline workflow runs:
 *   node shared/model/scripted-server-cli.ts --fixture a.json [--fixture b.json] [--port 0] [--host 127.0.0.1]
 * Prints the base URL (point ANTHROPIC_BASE_URL or the adapter's baseURL at it); Ctrl-C stops it.
 */
import { readFile } from 'node:fs/promises';
import { parseArgs } from 'node:util';
import { startScriptedModelServer } from './scripted-server.ts';

const USAGE =
  'usage: scripted-server-cli --fixture <file.json> [--fixture <file.json>…] [--port <n>] [--host <addr>]';

async function main() {
  const { values } = parseArgs({
    options: {
      fixture: { type: 'string', multiple: true },
      port: { type: 'string', default: '0' },
      host: { type: 'string', default: '127.0.0.1' },
    },
  });
  const files = values.fixture ?? [];
  if (files.length === 0) throw new Error(USAGE);
  const port = Number(values.port);
  if (!Number.isInteger(port) || port < 0 || port > 65_535) throw new Error(`invalid --port ${values.port}`);
  const fixtures = await Promise.all(files.map(async (file) => JSON.parse(await readFile(file, 'utf8'))));
  const server = await startScriptedModelServer({ fixtures, port, host: values.host });
  process.stdout.write(`${server.url}\n`);
  const stop = () => {
    for (const failure of server.failures) process.stderr.write(`failure: ${failure.message}\n`);
    server.close().then(() => process.exit(server.failures.length === 0 ? 0 : 1));
  };
  process.once('SIGINT', stop);
  process.once('SIGTERM', stop);
}

main().catch((error: unknown) => {
  process.stderr.write(`${error instanceof Error ? error.message : String(error)}\n`);
  process.exit(2);
});
