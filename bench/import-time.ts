/**
 * Cold import time of a bundle: a fresh Node.js process per sample imports the entry once and reports how
 * long `import()` took, wall clock and CPU (node's own start-up excluded). CPU time is printed beside the
 * wall time because this machine is shared: under load the wall time grows, the CPU time much less. The
 * child gets the function's plain environment variables, so `NODE_OPTIONS` (e.g. `--enable-source-maps`)
 * costs what it costs in Lambda.
 */
import { execFileSync } from 'node:child_process';
import { pathToFileURL } from 'node:url';

/**
 * \`load(url)\`, as Lambda loads a handler file: a \`.js\` file is CommonJS and is required, a \`.mjs\` file is an
 * ES module and is imported (https://docs.aws.amazon.com/lambda/latest/dg/nodejs-handler.html#nodejs-commonjs-es-modules).
 */
export const LOAD = `
const { createRequire } = await import('node:module');
const load = async (url) =>
  url.endsWith('.mjs') ? import(url) : createRequire(import.meta.url)(new URL(url).pathname);
`;

const CHILD = `
${LOAD}
const url = process.argv[1];
const started = performance.now();
const cpu = process.cpuUsage();
await load(url);
const used = process.cpuUsage(cpu);
const wall = performance.now() - started;
process.stdout.write(JSON.stringify([wall, (used.user + used.system) / 1000, process.memoryUsage().rss]));
process.exit(0);
`;

/** One sample: wall-clock and CPU milliseconds of the import, and the resident memory after it. */
export type ImportTime = { wallMs: number; cpuMs: number; rssBytes: number };

/** What each of `samples` fresh processes took to import `entry`. */
export function importTimes(entry: string, env: Record<string, string>, samples: number): ImportTime[] {
  const times: ImportTime[] = [];
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
    const [wallMs, cpuMs, rssBytes] = JSON.parse(out) as [number, number, number];
    times.push({ wallMs, cpuMs, rssBytes });
  }
  return times;
}

export function median(values: readonly number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = Math.floor(sorted.length / 2);
  return sorted.length % 2 === 1 ? sorted[mid]! : (sorted[mid - 1]! + sorted[mid]!) / 2;
}
