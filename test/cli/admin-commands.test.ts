/**
 * The commands of issue 17 item 2 against a local stack: run list (filters, --watch), run cancel, run show's
 * refused calls, workflow enable|disable|delete|validate|diff, audit show, per-command help, colour, and
 * idempotent `workflow apply` of every file in examples/ whatever its key order.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { USAGE } from '../../shared/cli/main.ts';
import { decideThroughPage } from '../../shared/demo/approve.ts';
import type { Run } from '../../shared/schemas/run.ts';
import { type CliStack, eventually, settledRun, startCliStack, type WfResult, wf } from './support.ts';
import { GATED_WORKFLOW, gatedFixture, NOTES_WORKFLOW, notesFixture } from './workflows.ts';

let cli: CliStack;
const runIdOf = (result: WfResult) => /^started (run_[A-Za-z0-9]+) /.exec(result.lines[0] ?? '')?.[1] ?? '';
/** `wf` against the stack with an environment of the test's choosing (colour variables). */
const wfEnv = (argv: string[], env: NodeJS.ProcessEnv) =>
  wf([...argv, '--url', cli.stack.url, '--api-key', cli.stack.apiKey], env);

beforeAll(async () => {
  cli = await startCliStack([notesFixture, gatedFixture]);
  for (const [name, text] of [
    ['cli-notes', NOTES_WORKFLOW],
    ['cli-gated', GATED_WORKFLOW],
  ] as const) {
    const applied = await cli.wf(['workflow', 'apply', '-f', cli.file(`${name}.workflow.yaml`, text)]);
    if (applied.code !== 0) throw new Error(`${name} did not apply: ${applied.stdout}${applied.stderr}`);
  }
});

afterAll(async () => {
  await cli?.stop();
});

/** The same value with every object's keys in reverse order (event patterns included). */
const reversedKeys = (value: unknown): unknown =>
  Array.isArray(value)
    ? value.map(reversedKeys)
    : value !== null && typeof value === 'object'
      ? Object.fromEntries(
          Object.entries(value)
            .reverse()
            .map(([key, child]) => [key, reversedKeys(child)]),
        )
      : value;

describe('wf workflow apply is idempotent', () => {
  const examples = readdirSync(new URL('../../examples/', import.meta.url)).filter((name) =>
    /\.workflow\.(ya?ml|json)$/.test(name),
  );

  it.each(examples)('%s: re-applying it, in any key order, creates no version', async (name) => {
    const text = readFileSync(new URL(`../../examples/${name}`, import.meta.url), 'utf8');
    const first = await cli.wf(['workflow', 'apply', '-f', cli.file(name, text), '--json']);
    const shuffled = cli.file(`shuffled-${name}.json`, JSON.stringify(reversedKeys(parse(text))));

    const again = await cli.wf(['workflow', 'apply', '-f', cli.file(name, text)]);
    const reordered = await cli.wf(['workflow', 'apply', '-f', shuffled]);

    expect(first.code).toBe(0);
    expect(again.stdout).toMatch(/is unchanged at version 1$/);
    expect(reordered.stdout).toMatch(/is unchanged at version 1$/);
  });
});

describe('wf workflow validate | diff | disable | enable | delete', () => {
  it('validate checks a file offline: valid, or each field error and exit 1', async () => {
    const good = await wf(['workflow', 'validate', '-f', cli.file('v.workflow.yaml', NOTES_WORKFLOW)]);
    const bad = await wf([
      'workflow',
      'validate',
      '-f',
      cli.file('bad.workflow.yaml', NOTES_WORKFLOW.replace('[notes_put]', '[launch_rockets]')),
    ]);

    expect(good.code).toBe(0);
    expect(good.stdout).toMatch(/^valid: .*v\.workflow\.yaml \(agent workflow cli-notes\)$/);
    expect(bad.code).toBe(1);
    expect(bad.stdout).toMatch(/allowedActions\[0\]: .launch_rockets. is neither/);
  });

  it('diff shows the change against the latest version, and none for the same file', async () => {
    const changed = cli.file('d.workflow.yaml', NOTES_WORKFLOW.replace('maxTurns: 4', 'maxTurns: 3'));
    const same = await cli.wf(['workflow', 'diff', '-f', cli.file('s.workflow.yaml', NOTES_WORKFLOW)]);
    const diff = await cli.wf(['workflow', 'diff', '-f', changed]);

    expect(same.lines).toEqual(['cli-notes v1: no change']);
    expect(diff.lines).toEqual(['cli-notes v1 → v2:', '- budget.maxTurns: 4', '+ budget.maxTurns: 3']);
  });

  it('disable, enable and delete change the workflow; a disabled one starts no run', async () => {
    const name = 'cli-lifecycle';
    await cli.wf([
      'workflow',
      'apply',
      '-f',
      cli.file('l.workflow.yaml', NOTES_WORKFLOW.replace('cli-notes', name)),
    ]);

    const disabled = await cli.wf(['workflow', 'disable', name]);
    const refused = await cli.wf(['run', 'start', name]);
    const enabled = await cli.wf(['workflow', 'enable', name, '--json']);
    const deleted = await cli.wf(['workflow', 'delete', name]);
    const gone = await cli.wf(['workflow', 'enable', name]);

    expect(disabled.stdout).toMatch(/^cli-lifecycle \(wf_\w+\) disabled$/);
    expect(refused.code).toBe(1);
    expect(JSON.parse(enabled.stdout).workflow.enabled).toBe(true);
    expect(deleted.stdout).toMatch(/deleted \(its name is free again\)$/);
    expect(gone.code).toBe(2);
    expect(gone.stderr).toMatch(/no workflow named 'cli-lifecycle'/);
  });
});

describe('wf run list | cancel | show | audit show', () => {
  let doneRun: string;
  let deniedRun: string;

  beforeAll(async () => {
    doneRun = runIdOf(await cli.wf(['run', 'start', 'cli-notes', '--wait']));
    await settledRun(cli.client, doneRun);
    // A gated call the approver denies: the run shows it as refused.
    const waiting = cli.wf(['run', 'start', 'cli-gated', '--wait']);
    const link = await eventually(
      'the approval link',
      async () => cli.stack.inbox.notices().find((notice) => notice.workflowName === 'cli-gated')?.url,
    );
    await decideThroughPage(link, 'deny');
    deniedRun = runIdOf(await waiting);
    await settledRun(cli.client, deniedRun);
  });

  it('run list filters by workflow and status', async () => {
    const notes = await cli.wf(['run', 'list', '--workflow', 'cli-notes']);
    const done = await cli.wf(['run', 'list', '--status', 'done', '--json']);
    const bad = await cli.wf(['run', 'list', '--status', 'finished']);

    expect(notes.lines).toEqual([
      expect.stringMatching(new RegExp(`^${doneRun} {2}cli-notes +v1 {2}done \\(end_turn\\) {2}on_demand`)),
    ]);
    expect((JSON.parse(done.stdout) as { items: Run[] }).items.every((run) => run.status === 'done')).toBe(
      true,
    );
    expect(bad.code).toBe(2);
    expect(bad.stderr).toMatch(/--status must be one of/);
  });

  it('run list --watch prints each new run and status change (not a terminal)', async () => {
    const lines: string[] = [];
    const stop = new AbortController();
    const watching = main(
      [
        ...['run', 'list', '--workflow', 'cli-notes', '--watch'],
        '--url',
        cli.stack.url,
        '--api-key',
        cli.stack.apiKey,
      ],
      lines,
      stop.signal,
    );
    await eventually('the first listing', async () => (lines.length > 0 ? true : undefined));
    const started = runIdOf(await cli.wf(['run', 'start', 'cli-notes', '--wait']));
    await eventually('the watch to see the new run done', async () =>
      lines.some((line) => line.startsWith(started) && line.includes(' done ')) ? true : undefined,
    );
    stop.abort();

    expect(await watching).toBe(0);
    expect(lines.filter((line) => line.startsWith(started)).length).toBeGreaterThanOrEqual(1);
  });

  it('run cancel cancels a run waiting for approval; cancelling again leaves it as it is', async () => {
    const started = await cli.wf(['run', 'start', 'cli-gated']);
    const runId = runIdOf(started);
    await eventually('the run to wait', async () => {
      const { run } = await cli.client.get<{ run: Run }>(`/v1/runs/${runId}`);
      return run.status === 'awaiting_approval' ? run : undefined;
    });

    const cancelled = await cli.wf(['run', 'cancel', runId]);
    const again = await cli.wf(['run', 'cancel', runId]);
    const foreign = await cli.wf(['run', 'cancel', 'run_doesnotexist00']);

    expect(cancelled.stdout).toBe(`${runId}  cancelled`);
    expect(again.code).toBe(0);
    expect(foreign.code).toBe(1);
    expect(foreign.stderr).toMatch(/not_found, HTTP 404/);
  });

  it('run show calls out the denied call', async () => {
    const shown = await cli.wf(['run', 'show', deniedRun]);
    const json = await cli.wf(['run', 'show', deniedRun, '--json']);

    expect(shown.lines).toContain('  refused calls: 1');
    expect(shown.lines).toContainEqual(
      expect.stringMatching(/^ {4}DENIED notes_append \(\w+, audit #\d+\): /),
    );
    expect(JSON.parse(json.stdout).refusedCalls).toEqual([expect.objectContaining({ tool: 'notes_append' })]);
  });

  it('audit show prints the chain entry by entry and verifies it', async () => {
    const shown = await cli.wf(['audit', 'show', deniedRun]);

    expect(shown.code).toBe(0);
    expect(shown.lines[0]).toMatch(/^# {2}0 \S+ {2}run created/);
    expect(shown.lines).toContainEqual(expect.stringMatching(/denied: notes_append/));
    expect(shown.lines.at(-1)).toMatch(/^chain verified: \d+ entries$/);
  });

  it('colours a terminal, honouring NO_COLOR and FORCE_COLOR; never --json', async () => {
    const forced = await wfEnv(['run', 'list', '--status', 'done'], { FORCE_COLOR: '1' });
    const none = await wfEnv(['run', 'list', '--status', 'done'], { FORCE_COLOR: '1', NO_COLOR: '1' });
    const json = await wfEnv(['run', 'list', '--status', 'done', '--json'], { FORCE_COLOR: '1' });

    expect(forced.stdout).toContain('\u001b[32mdone\u001b[39m');
    expect(none.stdout).not.toContain('\u001b[');
    expect(json.stdout).not.toContain('\u001b[');
  });
});

describe('per-command help', () => {
  it.each([
    [['run', 'list', '--help'], /^usage: wf run list \[--workflow WORKFLOW\]/],
    [['help', 'fixture', 'init'], /^usage: wf fixture init WORKFLOW_FILE/],
    [['workflow', 'diff', '-h'], /^usage: wf workflow diff -f FILE/],
  ])("%j prints that command's usage and examples", async (argv, usage) => {
    const result = await wf(argv);

    expect(result.code).toBe(0);
    expect(result.stdout).toMatch(usage);
    expect(result.stdout).toContain('examples:');
  });

  it('a command without an entry falls back to the global usage', async () => {
    expect((await wf(['help', 'whoami'])).stdout).toBe(USAGE);
  });
});

/** `wf` with a stop signal (the bin's Ctrl-C), printing into `lines`. */
async function main(argv: string[], lines: string[], signal: AbortSignal) {
  const { main: wfMain } = await import('../../shared/cli/main.ts');
  return wfMain(argv, {
    stdout: (text) => lines.push(...text.split('\n')),
    stderr: () => undefined,
    env: {},
    signal,
  });
}
