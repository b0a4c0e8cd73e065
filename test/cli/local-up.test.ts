/**
 * `wf local up` as a user runs it: the real bin in a child process, with its own DynamoDB Local on disk,
 * until SIGINT (Ctrl-C). Its data directory is `--data-dir`, else `WF_DATA_DIR` (as for every other command),
 * and another `wf` finds the API key in the same data directory.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { existsSync, writeFileSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { eventually, wf } from './support.ts';
import { EVENT_WORKFLOW, eventFixture } from './workflows.ts';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const children: ChildProcess[] = [];
const dirs: string[] = [];

afterAll(async () => {
  // Only if a test failed before its child stopped: end it, by its own pid.
  for (const child of children) if (child.exitCode === null) child.kill('SIGKILL');
  for (const dir of dirs) await rm(dir, { recursive: true, force: true });
});

/** `wf local up ARGS` with only PATH, HOME and `env` in its environment (never the developer's WF_*). */
function localUp(args: string[], env: Record<string, string>) {
  const started = spawn(process.execPath, ['bin/wf.ts', 'local', 'up', '--port', '0', ...args], {
    cwd: ROOT,
    env: { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  children.push(started);
  return started;
}

/** Resolves with stdout once `marker` has been printed; rejects if the process exits first. */
function waitForOutput(process: ChildProcess, marker: string, timeoutMs: number): Promise<string> {
  return new Promise((resolve, reject) => {
    let text = '';
    const timer = setTimeout(
      () => reject(new Error(`no '${marker}' within ${timeoutMs} ms; got:\n${text}`)),
      timeoutMs,
    );
    process.stdout?.on('data', (chunk: Buffer) => {
      text += chunk.toString();
      if (text.includes(marker)) {
        clearTimeout(timer);
        resolve(text);
      }
    });
    process.once('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`wf local up exited (${code}) before printing '${marker}':\n${text}`));
    });
  });
}

describe('wf local up', () => {
  it('starts the runtime, prints where it is and its API key, serves the CLI, and stops cleanly on SIGINT', async () => {
    // Prepare
    const dataDir = await mkdtemp(join(tmpdir(), 'wf-local-up-'));
    dirs.push(dataDir);
    // The event workflow's fixture comes from --fixtures (the repository's examples do not hold it).
    const fixtures = await mkdtemp(join(dataDir, 'fixtures-'));
    writeFileSync(join(fixtures, 'cli-events.fixture.json'), JSON.stringify(eventFixture));
    // The data directory from WF_DATA_DIR, as every other command reads it.
    const started = localUp(['--fixtures', fixtures], { WF_DATA_DIR: dataDir });
    let all = '';
    started.stdout?.on('data', (chunk: Buffer) => {
      all += chunk.toString();
    });
    let stderr = '';
    started.stderr?.on('data', (chunk: Buffer) => {
      stderr += chunk.toString();
    });

    // Act
    const printed = await waitForOutput(started, 'Ctrl-C stops it', 90_000);
    const url = /^wf local stack on (http:\/\/127\.0\.0\.1:\d+)$/m.exec(printed)?.[1];
    const list = await wf(['workflow', 'list', '--url', url ?? ''], { WF_DATA_DIR: dataDir });
    const inbox = await fetch(`${url}/local/inbox`);
    const local = ['--url', url ?? '', '--data-dir', dataDir];
    const workflowFile = join(dataDir, 'cli-events.workflow.yaml');
    writeFileSync(workflowFile, EVENT_WORKFLOW);
    await wf(['workflow', 'apply', '-f', workflowFile, ...local]);
    const put = await wf(['events', 'put', '--source', 'com.example.cli', '--detail-type', 'Ping', ...local]);
    const eventLine = await eventually(
      'the event-started line',
      async () => /^event started run_\w+ \(cli-events v1\)$/m.exec(all)?.[0],
    );
    const exited = new Promise<number | null>((resolve) => started.once('exit', (code) => resolve(code)));
    started.kill('SIGINT');
    const code = await exited;

    // Assess
    expect(url).toBeDefined();
    expect(printed).toMatch(
      /^ {2}API key \(owner 'local'\): wfl_[A-Za-z0-9_-]+ {3}\(also in .*api-keys\.json\)$/m,
    );
    expect(printed).toContain(`  approval inbox: ${url}/local/inbox`);
    expect(printed).toMatch(/^ {2}model: scripted Messages-API server at http:\/\/127\.0\.0\.1:\d+$/m);
    expect(printed).toContain(`  data: ${dataDir}`);
    expect(list).toMatchObject({ code: 0, stdout: 'no workflows yet: wf workflow apply -f FILE' });
    expect(inbox.status).toBe(200);
    expect(put.code).toBe(0);
    expect(eventLine).toBeDefined();
    expect(printed).toContain(`  fixtures: ${fixtures} (and examples/fixtures)`);
    expect(all).toContain('Ctrl-C: stopping the local stack (runs in flight resume on the next wf local up)');
    expect(all).toMatch(/stopped\.\n$/);
    expect(code).toBe(0);
    expect(stderr).toBe('');
    await expect(fetch(`${url}/local/inbox`)).rejects.toThrow();
  }, 120_000);

  it('keeps its files in --data-dir when WF_DATA_DIR names another directory: the flag wins', async () => {
    // Prepare
    const base = await mkdtemp(join(tmpdir(), 'wf-local-up-flag-'));
    dirs.push(base);
    const flagDir = join(base, 'from-flag');
    const envDir = join(base, 'from-env');
    const started = localUp(['--data-dir', flagDir], { WF_DATA_DIR: envDir });

    // Act
    const printed = await waitForOutput(started, 'Ctrl-C stops it', 90_000);
    const exited = new Promise<number | null>((resolve) => started.once('exit', (code) => resolve(code)));
    started.kill('SIGINT');
    const code = await exited;

    // Assess
    expect(printed).toContain(`  data: ${flagDir}`);
    expect(existsSync(join(flagDir, 'api-keys.json'))).toBe(true);
    expect(existsSync(envDir)).toBe(false);
    expect(code).toBe(0);
  }, 120_000);
});
