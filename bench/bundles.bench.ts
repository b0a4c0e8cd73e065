/**
 * npm run bench:bundles — size and cold import time of every Lambda bundle, from a fresh synth (or from
 * `--from <cloud assembly dir>`), against the goals of issue #16: ≤ 600 KB and ≤ 150 ms median of 5 fresh
 * processes. The bundles hold the AWS SDK (docs/deploy.md, "Function bundles"): the size goal is applied to the
 * bytes that are not the SDK's (attributed through each bundle's source map), and the total is printed beside
 * it. A fresh synth's assembly has
 * no node_modules but the lazy libraries linked beside a bundle (`node_modules/wf-lazy/`, whose size is printed
 * apart: infra/constructs/lazy-libraries.ts), so a bundle that still required a package would fail here rather
 * than borrow the repository's. `--profile` adds where each import spends its CPU. `--against <cloud assembly dir>` measures
 * a second synth (e.g. main's) in the same run, function by function, its samples interleaved with this one's
 * so that the machine's load weighs on both alike. A floor row (bench/import-floor: the DynamoDB document
 * client alone, bundled the same way) shows the least an import takes on this machine. Prints tables; asserts
 * nothing.
 */
import { execFileSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  bytesBySource,
  codeSize,
  type FunctionBundle,
  functionBundles,
  lazyLibraryBytes,
} from './bundle-assets.ts';
import { floorBundle } from './import-floor/bundle.ts';
import { GROUPS, groupOfPath, importProfile } from './import-profile.ts';
import { type ImportTime, importTimes, median } from './import-time.ts';
import { printTable } from './support.ts';

const MAX_BYTES = 600 * 1024;
const MAX_IMPORT_MS = 150;
const SAMPLES = 5;
const PROFILE_SAMPLES = 3;
const STACK = process.env.BENCH_STACK ?? 'WfRuntime';
const repoRoot = new URL('../', import.meta.url).pathname;

function againstDir(): string | undefined {
  const at = process.argv.indexOf('--against');
  if (at < 0) return undefined;
  const dir = process.argv[at + 1];
  if (!dir || !existsSync(join(dir, `${STACK}.template.json`))) {
    throw new Error(
      `--against needs a cloud assembly directory holding ${STACK}.template.json (e.g. main's cdk.out)`,
    );
  }
  return dir;
}

function assemblyDir(): { dir: string; cleanup: () => void } {
  const from = process.argv.indexOf('--from');
  if (from >= 0) {
    const dir = process.argv[from + 1];
    if (!dir || !existsSync(dir)) throw new Error('--from needs an existing cloud assembly directory');
    return { dir, cleanup: () => {} };
  }
  const dir = mkdtempSync(join(tmpdir(), 'wf-bench-bundles-'));
  execFileSync(join(repoRoot, 'node_modules/.bin/cdk'), ['synth', '--quiet', '--output', dir], {
    cwd: repoRoot,
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  return { dir, cleanup: () => rmSync(dir, { recursive: true, force: true }) };
}

const kb = (bytes: number) => `${(bytes / 1024).toFixed(0)} KB`;

/**
 * `--profile`: where each bundle's import spends its CPU (bench/import-profile.ts), the mean of 3 profiled
 * imports, in CPU ms by group; the sampling profiler slows the import, so the total is above the table's.
 */
function printProfiles(bundles: readonly FunctionBundle[]): void {
  const rows = bundles.map((bundle) => {
    const groups = importProfile(bundle.entry, bundle.env, PROFILE_SAMPLES);
    const total = [...groups.values()].reduce((sum, ms) => sum + ms, 0);
    const row: Record<string, string> = { function: bundle.name, 'cpu ms': total.toFixed(0) };
    for (const group of GROUPS) {
      row[group] = (groups.get(group) ?? 0).toFixed(0);
      groups.delete(group);
    }
    const others = [...groups].sort((a, b) => b[1] - a[1]);
    const otherMs = others.reduce((sum, [, ms]) => sum + ms, 0);
    row.other = `${otherMs.toFixed(0)}${others[0] ? ` (${others[0][0]} ${others[0][1].toFixed(0)})` : ''}`;
    return row;
  });
  const load = loadavg()[0]!.toFixed(1);
  printTable(
    `Import CPU by group, ms (mean of ${PROFILE_SAMPLES} profiled imports; load average ${load})`,
    rows,
  );
}

/** What the table prints of one bundle: its code's bytes, the AWS SDK's share, and its import samples. */
type Measured = {
  bytes: number;
  gzipBytes: number;
  sdkBytes: number;
  lazyBytes: number;
  times: ImportTime[];
};

function sizes(bundle: { assetDir: string; entry: string }): Omit<Measured, 'times'> {
  const { bytes, gzipBytes } = codeSize(bundle.assetDir);
  const sdkBytes = [...bytesBySource(bundle.entry)]
    .filter(([source]) => groupOfPath(source) === 'AWS SDK')
    .reduce((sum, [, size]) => sum + size, 0);
  return { bytes, gzipBytes, sdkBytes, lazyBytes: lazyLibraryBytes(bundle.assetDir) };
}

/**
 * SAMPLES fresh-process imports of each bundle, round by round (one sample of each bundle per round), so that a
 * change of the machine's load during the run weighs on every bundle alike.
 */
function measureInterleaved(
  bundles: readonly { entry: string; env: Record<string, string> }[],
): ImportTime[][] {
  const times: ImportTime[][] = bundles.map(() => []);
  for (let round = 0; round < SAMPLES; round++) {
    for (const [index, bundle] of bundles.entries()) {
      times[index]!.push(...importTimes(bundle.entry, bundle.env, 1));
    }
  }
  return times;
}

const wallMs = (measured: Measured) => median(measured.times.map((time) => time.wallMs));
const cpuMs = (measured: Measured) => median(measured.times.map((time) => time.cpuMs));
const rssMb = (measured: Measured) => median(measured.times.map((time) => time.rssBytes)) / 2 ** 20;
const meetsGoal = (measured: Measured) =>
  measured.bytes - measured.sdkBytes <= MAX_BYTES && wallMs(measured) <= MAX_IMPORT_MS;
const goalOf = (measured: Measured) =>
  meetsGoal(measured) ? 'pass' : `FAIL (≤ ${kb(MAX_BYTES)} without the SDK, ≤ ${MAX_IMPORT_MS} ms)`;

function row(name: string, memoryMb: number | string, measured: Measured): Record<string, string | number> {
  return {
    function: name,
    'memory MB': memoryMb,
    bytes: kb(measured.bytes),
    gzip: kb(measured.gzipBytes),
    'AWS SDK': kb(measured.sdkBytes),
    'without AWS SDK': kb(measured.bytes - measured.sdkBytes),
    'beside it, on first use': measured.lazyBytes === 0 ? '-' : kb(measured.lazyBytes),
    [`import ms (median of ${SAMPLES})`]: wallMs(measured).toFixed(0),
    'cpu ms': cpuMs(measured).toFixed(0),
    'rss MB': rssMb(measured).toFixed(0),
    goal: name === FLOOR ? '(reference)' : goalOf(measured),
  };
}

/** `before → after`, or one side alone when the function is only in one assembly. */
const pair = (before: string | undefined, after: string | undefined) =>
  before === undefined ? `(new) ${after}` : after === undefined ? `${before} (gone)` : `${before} → ${after}`;

function comparedRow(
  name: string,
  before: Measured | undefined,
  after: Measured | undefined,
): Record<string, string> {
  // The floor is measured once and printed once.
  const both = (print: (measured: Measured) => string) =>
    before === after && after ? print(after) : pair(before && print(before), after && print(after));
  return {
    function: name,
    KB: both((measured) => (measured.bytes / 1024).toFixed(0)),
    'without AWS SDK': both((measured) => ((measured.bytes - measured.sdkBytes) / 1024).toFixed(0)),
    [`import ms (median of ${SAMPLES})`]: both((measured) => wallMs(measured).toFixed(0)),
    'cpu ms': both((measured) => cpuMs(measured).toFixed(0)),
    goal: name === FLOOR ? '(reference)' : after ? goalOf(after) : '-',
  };
}

const FLOOR = '(floor: DynamoDB document client)';
const floor = await floorBundle();
const { dir, cleanup } = assemblyDir();
try {
  const bundles = functionBundles(JSON.parse(readFileSync(join(dir, `${STACK}.template.json`), 'utf8')), dir);
  const against = againstDir();
  const baseline = against
    ? functionBundles(JSON.parse(readFileSync(join(against, `${STACK}.template.json`), 'utf8')), against)
    : [];
  const floorEntry = { name: FLOOR, env: {}, ...floor };
  const all = [floorEntry, ...baseline, ...bundles];
  const times = measureInterleaved(all);
  const measured = all.map((bundle, index) => ({ ...sizes(bundle), times: times[index]! }));
  const floorMeasured = measured[0]!;
  const baselineMeasured = new Map(baseline.map((bundle, index) => [bundle.name, measured[1 + index]!]));
  const currentMeasured = new Map(
    bundles.map((bundle, index) => [bundle.name, measured[1 + baseline.length + index]!]),
  );
  const load = loadavg()[0]!.toFixed(1);
  if (against === undefined) {
    printTable(`Lambda bundles (node ${process.version}, load average ${load} at the end)`, [
      ...bundles.map((bundle) => row(bundle.name, bundle.memoryMb ?? '-', currentMeasured.get(bundle.name)!)),
      row(FLOOR, '-', floorMeasured),
    ]);
  } else {
    const names = [...new Set([...baseline, ...bundles].map((bundle) => bundle.name))].sort();
    const passing = names.filter((name) => {
      const after = currentMeasured.get(name);
      return after !== undefined && meetsGoal(after);
    }).length;
    printTable(
      `Lambda bundles, ${against} → ${process.argv.includes('--from') ? dir : 'this synth'} ` +
        `(node ${process.version}, load average ${load} at the end; ${passing} of ${bundles.length} meet the goal)`,
      [
        ...names.map((name) => comparedRow(name, baselineMeasured.get(name), currentMeasured.get(name))),
        comparedRow(FLOOR, floorMeasured, floorMeasured),
      ],
    );
  }
  if (process.argv.includes('--profile')) printProfiles(bundles);
} finally {
  cleanup();
  rmSync(floor.assetDir, { recursive: true, force: true });
}
