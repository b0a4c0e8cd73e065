/**
 * Vitest global setup: one temporary directory per test run, removed when the run ends. Test workers inherit
 * `TMPDIR` from here, so everything the suite creates with `os.tmpdir()` lands in it: data directories, and the
 * `cdk.out*` folders the CDK `App` makes when a test synthesizes without an `outdir` (about 1.4 MB each, a few
 * hundred per run, which otherwise stayed in /tmp after every `npm test`).
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

export default function setup() {
  const dir = mkdtempSync(join(tmpdir(), 'wf-test-run-'));
  const previous = process.env.TMPDIR;
  process.env.TMPDIR = dir;
  return () => {
    if (previous === undefined) delete process.env.TMPDIR;
    else process.env.TMPDIR = previous;
    rmSync(dir, { recursive: true, force: true });
  };
}
