/**
 * Runs the fixture engine for a demo: `node shared/external/fixture-engine/cli.ts [port]`. Every execution
 * runs for two observes, then succeeds with a `result.json` artifact. Loopback only; Ctrl-C stops it.
 */
import { FixtureEngine } from './server.ts';

const port = Number(process.argv[2] ?? 0);
const engine = await FixtureEngine.start({ port: Number.isInteger(port) ? port : 0 });
engine.script('*', {
  running: 2,
  summary: 'fixture run finished',
  artifacts: [{ path: 'result.json', content: '{"ok":true}\n' }],
});
console.log(`fixture engine listening on ${engine.url} (incarnation ${engine.incarnation})`);
process.on('SIGINT', () => void engine.close().then(() => process.exit(0)));
