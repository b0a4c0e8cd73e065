/**
 * Cold import time of a bundle: a fresh Node.js process per sample imports the entry once and reports how
 * long `import()` took (node's own start-up excluded). The child gets the function's plain environment
 * variables, so `NODE_OPTIONS` (e.g. `--enable-source-maps`) costs what it costs in Lambda.
 */
import { execFileSync } from 'node:child_process';
import { pathToFileURL } from 'node:url';

const CHILD = `
const url = process.argv[1];
const started = performance.now();
await import(url);
process.stdout.write(String(performance.now() - started));
process.exit(0);
`;

/** Milliseconds each of `samples` fresh processes took to import `entry`. */
export function importTimes(entry: string, env: Record<string, string>, samples: number): number[] {
  const times: number[] = [];
  for (let i = 0; i < samples; i++) {
    const out = execFileSync(
      process.execPath,
      ['--input-type=module', '--eval', CHILD, pathToFileURL(entry).href],
      {
        // Only what a Lambda sandbox would have: no inherited NODE_OPTIONS from npm or vitest.
        env: { PATH: process.env.PATH ?? '', AWS_REGION: 'us-east-1', ...env },
        encoding: 'utf8',
      },
    );
    times.push(Number(out));
  }
  return times;
}

export function median(values: readonly number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = Math.floor(sorted.length / 2);
  return sorted.length % 2 === 1 ? sorted[mid]! : (sorted[mid - 1]! + sorted[mid]!) / 2;
}
