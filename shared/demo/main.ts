/**
 * `npm start`: the worked example, end to end, on this machine. With `CI=true` or `--auto-approve` the
 * approval goes through the same page POST as a human's click; with ANTHROPIC_API_KEY it runs on Claude.
 */
import { runWorkedExample } from './worked-example.ts';

const started = performance.now();
// Ctrl-C while waiting for the decision: one line, no stack trace (the data directory keeps the run).
process.once('SIGINT', () => {
  process.stdout.write('\nworked example stopped (Ctrl-C); npm start runs it again\n');
  process.exit(130);
});
try {
  const result = await runWorkedExample({
    autoApprove: process.env.CI === 'true' || process.argv.includes('--auto-approve'),
    ...(process.env.ANTHROPIC_API_KEY ? { anthropicApiKey: process.env.ANTHROPIC_API_KEY } : {}),
    print: (line) => process.stdout.write(`${line}\n`),
  });
  process.stdout.write(
    `${result.ok ? 'worked example complete' : 'worked example FAILED'} in ${((performance.now() - started) / 1000).toFixed(1)} s\n`,
  );
  process.exitCode = result.ok ? 0 : 1;
} catch (error) {
  process.stderr.write(`worked example stopped: ${(error as Error).message}\n`);
  process.exitCode = 1;
}
