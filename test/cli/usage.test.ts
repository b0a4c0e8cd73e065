/** `wf` without a stack: usage and exit statuses, an unreachable runtime, and the real `bin/wf.ts`. */
import { spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { USAGE } from '../../shared/cli/main.ts';
import { wf } from './support.ts';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
/** A loopback port nothing listens on (port 1 needs root to bind). */
const UNREACHABLE = 'http://127.0.0.1:1';

describe('wf owner-key', () => {
  it('prints the key of an owner, offline, as the runtime computes it', async () => {
    expect(await wf(['owner-key', 'auth0|abc'])).toMatchObject({
      code: 0,
      stdout: 'auth0=7Cabc',
      stderr: '',
    });
    const json = await wf(['owner-key', 'repo:org/x:ref:refs/heads/main', '--json']);
    expect(JSON.parse(json.stdout)).toEqual({
      owner: 'repo:org/x:ref:refs/heads/main',
      ownerKey: 'repo=3Aorg=2Fx=3Aref=3Arefs=2Fheads=2Fmain',
      stack: 'WfRuntime',
      secretPrefix: 'wf/repo=3Aorg=2Fx=3Aref=3Arefs=2Fheads=2Fmain/',
    });
  });

  it('names the secret prefix of another stack, as that stack derives it (deployment-names.ts)', async () => {
    const json = await wf(['owner-key', 'auth0|abc', '--stack', 'Staging', '--json']);
    expect(JSON.parse(json.stdout)).toMatchObject({
      stack: 'Staging',
      secretPrefix: 'wf-Staging/auth0=7Cabc/',
    });
    expect(await wf(['owner-key', 'auth0|abc', '--stack', 'no_underscores'])).toMatchObject({ code: 2 });
  });
});

describe('wf usage', () => {
  it('prints the usage and exits 0 for --help and -h', async () => {
    const long = await wf(['--help']);
    const short = await wf(['whoami', '-h']);

    expect(long).toMatchObject({ code: 0, stdout: USAGE, stderr: '' });
    // A command without a per-command help entry (help.ts) gets the usage.
    expect(short).toMatchObject({ code: 0, stdout: USAGE });
  });

  it('prints the usage and exits 2 without a command', async () => {
    const result = await wf([]);

    expect(result).toMatchObject({ code: 2, stdout: USAGE });
  });

  // No API key is configured in these cases: a usage error is found before anything is read or sent.
  it.each([
    [['frobnicate'], "unknown command 'frobnicate'"],
    [['workflow', 'frobnicate', 'x'], "unknown command 'workflow frobnicate'"],
    [['run', 'cancel'], 'missing RUN'],
    [['audit', 'show'], 'missing RUN'],
    [['workflow', 'disable'], 'missing WORKFLOW'],
    [['workflow', 'validate'], 'missing -f FILE'],
    [['local'], "unknown command 'local'"],
    [['workflow', 'apply'], 'missing -f FILE'],
    [['run', 'start'], 'missing WORKFLOW (a name or wf_ id)'],
    [['run', 'show'], 'missing RUN'],
    [['run', 'transcript'], 'missing RUN'],
    [['audit', 'verify'], 'missing RUN'],
    [['events', 'put', '--detail-type', 'Ping'], 'missing --source'],
    [['owner-key'], 'missing OWNER'],
    [
      ['run', 'list', '--watch', '--interval', '0'],
      "--interval must be a number of seconds from 0.1 to 3600, got '0'",
    ],
    [
      ['run', 'start', 'x', '--wait', '--interval', 'soon'],
      "--interval must be a number of seconds from 0.1 to 3600, got 'soon'",
    ],
    [
      ['job', 'submit', '--prompt', 'p', '--wait', '--interval', '7200'],
      "--interval must be a number of seconds from 0.1 to 3600, got '7200'",
    ],
    [
      ['owner-key', 'has space'],
      "'has space' is not an owner id: letters, digits and . _ : @ + = | / - only",
    ],
  ])('%j exits 2 with "%s" and the usage', async (argv, message) => {
    const result = await wf(argv);

    expect(result.code).toBe(2);
    expect(result.stderr).toBe(`wf: ${message}\n\n${USAGE}`);
    expect(result.stdout).toBe('');
  });

  it('exits 2 naming an unknown option', async () => {
    const result = await wf(['workflow', 'list', '--colour']);

    expect(result.code).toBe(2);
    expect(result.stderr).toMatch(/^wf: Unknown option '--colour'/);
    expect(result.stderr).toContain(USAGE);
  });

  it('exits 2 when an option lacks its value', async () => {
    const result = await wf(['run', 'start', 'x', '--input']);

    expect(result.code).toBe(2);
    expect(result.stderr).toMatch(/^wf: Option '--input <value>' argument missing/);
  });
});

describe('wf against a runtime it cannot use', () => {
  it.each([[['workflow', 'list']], [['run', 'show', 'run_abcdef123456']], [['approvals', 'list']]])(
    '%j: an unreachable --url is one clear line and exit 1',
    async (argv) => {
      const result = await wf([...argv, '--url', UNREACHABLE, '--api-key', 'wfl_test']);

      expect(result.code).toBe(1);
      expect(result.stdout).toBe('');
      expect(result.stderr).toBe(
        `wf: cannot reach the runtime at ${UNREACHABLE} (fetch failed); is it running? (wf local up)`,
      );
    },
  );

  it('takes the URL and API key from WF_URL and WF_API_KEY', async () => {
    const result = await wf(['workflow', 'list'], { WF_URL: UNREACHABLE, WF_API_KEY: 'wfl_test' });

    expect(result.code).toBe(1);
    expect(result.stderr).toContain(`cannot reach the runtime at ${UNREACHABLE}`);
  });

  it('says how to get an API key when none is configured, and exits 1', async () => {
    const result = await wf(['workflow', 'list', '--url', UNREACHABLE, '--data-dir', '/nonexistent/wf-data']);

    expect(result.code).toBe(1);
    expect(result.stderr).toMatch(
      /^wf: no API key: pass --api-key, set WF_API_KEY, or start the local stack \(wf local up\)/,
    );
  });

  // docs/cli.md, exit statuses: a missing file is an error (1), one line naming it, not a usage mistake (2).
  it.each([
    [['workflow', 'apply', '-f']],
    [['workflow', 'apply', '--draft', '-f']],
    [['workflow', 'validate', '-f']],
    [['workflow', 'diff', '-f']],
    [['fixture', 'init']],
    [['grant', 'create', 'ci-bot', '-f']],
  ])('%j a file that does not exist: one line naming it, exit 1', async (argv) => {
    const missing = '/nonexistent/wf-docs/missing.workflow.yaml';
    const result = await wf([...argv, missing, '--url', UNREACHABLE, '--api-key', 'wfl_test']);

    expect(result.code).toBe(1);
    expect(result.stderr).toContain(missing);
    expect(result.stderr.split('\n')).toHaveLength(1);
  });

  it('--aws without a region says so, and exits 1 before signing anything', async () => {
    const result = await wf(['workflow', 'list', '--aws', '--url', UNREACHABLE]);

    expect(result).toMatchObject({
      code: 1,
      stderr: 'wf: --aws needs a region: pass --region or set AWS_REGION',
    });
  });
});

describe('bin/wf.ts', () => {
  it('runs as a program: npx node bin/wf.ts --help prints the usage and exits 0', () => {
    const child = spawnSync('npx', ['node', 'bin/wf.ts', '--help'], {
      cwd: ROOT,
      encoding: 'utf8',
      timeout: 60_000,
    });

    expect(child.error).toBeUndefined();
    expect(child.status).toBe(0);
    expect(child.stdout).toBe(`${USAGE}\n`);
  });

  it('exits with the command status: 2 for an unknown command', () => {
    const child = spawnSync(process.execPath, ['bin/wf.ts', 'frobnicate'], {
      cwd: ROOT,
      encoding: 'utf8',
      timeout: 60_000,
    });

    expect(child.status).toBe(2);
    expect(child.stderr).toContain("wf: unknown command 'frobnicate'");
  });
});
