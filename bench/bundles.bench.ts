/**
 * npm run bench:bundles — size and cold import time of every Lambda bundle, from a fresh synth (or from
 * `--from <cloud assembly dir>`), against the goals of issue #16: ≤ 600 KB and ≤ 150 ms median of 5 fresh
 * processes. The bundles hold the AWS SDK (docs/deploy.md, "Function bundles"): the size goal is applied to the
 * bytes that are not the SDK's (attributed through each bundle's source map), and the total is printed beside
 * it. A fresh synth's assembly has
 * no node_modules, so a bundle that still required a package would fail here rather than borrow the
 * repository's. `--profile` adds where each import spends its CPU. Prints tables; asserts nothing.
 */
import { execFileSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { bytesBySource, codeSize, functionBundles } from './bundle-assets.ts';
import { GROUPS, groupOfPath, importProfile } from './import-profile.ts';
import { importTimes, median } from './import-time.ts';
import { printTable } from './support.ts';

const MAX_BYTES = 600 * 1024;
const MAX_IMPORT_MS = 150;
const SAMPLES = 5;
const PROFILE_SAMPLES = 3;
const STACK = process.env.BENCH_STACK ?? 'WfRuntime';
const repoRoot = new URL('../', import.meta.url).pathname;

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
function printProfiles(template: Parameters<typeof functionBundles>[0]): void {
  const rows = functionBundles(template, dir).map((bundle) => {
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

const { dir, cleanup } = assemblyDir();
try {
  const template = JSON.parse(readFileSync(join(dir, `${STACK}.template.json`), 'utf8'));
  const rows = functionBundles(template, dir).map((bundle) => {
    const { bytes, gzipBytes } = codeSize(bundle.assetDir);
    const times = importTimes(bundle.entry, bundle.env, SAMPLES);
    const importMs = median(times.map((time) => time.wallMs));
    const sdkBytes = [...bytesBySource(bundle.entry)]
      .filter(([source]) => groupOfPath(source) === 'AWS SDK')
      .reduce((sum, [, size]) => sum + size, 0);
    const pass = bytes - sdkBytes <= MAX_BYTES && importMs <= MAX_IMPORT_MS;
    return {
      function: bundle.name,
      'memory MB': bundle.memoryMb ?? '-',
      bytes: kb(bytes),
      gzip: kb(gzipBytes),
      'AWS SDK': kb(sdkBytes),
      'without AWS SDK': kb(bytes - sdkBytes),
      'import ms (median of 5)': importMs.toFixed(0),
      'cpu ms': median(times.map((time) => time.cpuMs)).toFixed(0),
      'rss MB': (median(times.map((time) => time.rssBytes)) / 2 ** 20).toFixed(0),
      goal: pass ? 'pass' : `FAIL (≤ ${kb(MAX_BYTES)} without the SDK, ≤ ${MAX_IMPORT_MS} ms)`,
    };
  });
  const load = loadavg()[0]!.toFixed(1);
  printTable(`Lambda bundles (node ${process.version}, load average ${load} at the end)`, rows);
  if (process.argv.includes('--profile')) printProfiles(template);
} finally {
  cleanup();
}
