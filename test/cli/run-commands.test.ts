/**
 * `wf run start --wait`, `run show`, `run transcript`, `run receipts`, `audit verify` and `approvals list` against a local
 * stack whose scripted model serves the test's fixtures.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { USAGE } from '../../shared/cli/main.ts';
import { decideThroughPage } from '../../shared/demo/approve.ts';
import type { Approval } from '../../shared/schemas/approval.ts';
import type { Run } from '../../shared/schemas/run.ts';
import { editStoredAuditEntry } from '../support/audit-items.ts';
import { type CliStack, eventually, settledRun, startCliStack, type WfResult } from './support.ts';
import {
  ALL_FIXTURES,
  APPROVER,
  BROKEN_WORKFLOW,
  GATED_WORKFLOW,
  NOTE_VALUE,
  NOTES_WORKFLOW,
} from './workflows.ts';

let cli: CliStack;
let doneRunId: string;
let started: WfResult;

const runIdOf = (result: WfResult) => /^started (run_[A-Za-z0-9]+) /.exec(result.lines[0] ?? '')?.[1];

beforeAll(async () => {
  cli = await startCliStack(ALL_FIXTURES);
  for (const [name, text] of [
    ['cli-notes', NOTES_WORKFLOW],
    ['cli-broken', BROKEN_WORKFLOW],
    ['cli-gated', GATED_WORKFLOW],
  ] as const) {
    const applied = await cli.wf(['workflow', 'apply', '-f', cli.file(`${name}.workflow.yaml`, text)]);
    if (applied.code !== 0) throw new Error(`${name} did not apply: ${applied.stdout}${applied.stderr}`);
  }
  started = await cli.wf(['run', 'start', 'cli-notes', '--input', '{"topic":"release 2.4"}', '--wait']);
  doneRunId = runIdOf(started) ?? '';
  // `--wait` returns once the run is done and its result delivered: the chain no longer grows.
  await settledRun(cli.client, doneRunId);
});

afterAll(async () => {
  await cli?.stop();
});

describe('wf run start WORKFLOW --wait', () => {
  it('prints progress (turns, gate decisions, cost so far) and exits 0 when the run is done', () => {
    expect(started.code).toBe(0);
    expect(started.stderr).toBe('');
    expect(started.lines[0]).toMatch(/^started run_[A-Za-z0-9]+ \(cli-notes v1\)$/);
    expect(started.lines).toContain('run created (workflow version 1, on_demand trigger)');
    expect(started.lines).toContainEqual(
      expect.stringMatching(
        /^turn 1: model claude-sonnet-5-5 → tool_use \(400 in \/ 40 out, cache 0 read \/ 0 written, \$\d+\.\d{4}\) {2}\[cost so far \$\d+\.\d{4}\]$/,
      ),
    );
    expect(started.lines).toContain('  gate: notes_put → allow');
    expect(started.lines).toContain('  result: notes_put completed');
    expect(started.lines).toContainEqual(
      expect.stringMatching(/^turn 2: .* → end_turn .*\[cost so far \$\d+\.\d{4}\]$/),
    );
    expect(started.lines).toContain('status: running → done (end_turn)');
    expect(started.lines.at(-1)).toMatch(
      new RegExp(`^${doneRunId} {2}cli-notes v1 {2}done \\(end_turn\\) {2}\\$\\d+\\.\\d{4}$`),
    );
  });

  it('passes --input to the run as its input', async () => {
    const { run } = await cli.client.get<{ run: Run }>(`/v1/runs/${doneRunId}`);

    expect(run.input).toEqual({ topic: 'release 2.4' });
  });

  it('exits 3 when the run ends other than done, and names how it ended', async () => {
    const result = await cli.wf(['run', 'start', 'cli-broken', '--wait']);

    expect(result.code).toBe(3);
    expect(result.lines.at(-1)).toMatch(
      /^run_[A-Za-z0-9]+ {2}cli-broken v1 {2}failed( \(error\))? {2}\$0\.0000$/,
    );
    expect(result.lines).toContainEqual(expect.stringMatching(/^status: running → failed/));
  });

  it('without --wait prints the run id and exits 0; --json prints the run', async () => {
    const result = await cli.wf(['run', 'start', 'cli-notes', '--json', '--idempotency-key', 'cli-test-1']);
    const again = await cli.wf(['run', 'start', 'cli-notes', '--json', '--idempotency-key', 'cli-test-1']);

    expect(result.code).toBe(0);
    const { run } = JSON.parse(result.stdout) as { run: Run };
    expect(run).toMatchObject({
      workflowName: 'cli-notes',
      trigger: { type: 'on_demand', idempotencyKey: 'cli-test-1' },
    });
    // The same key is the same run.
    expect((JSON.parse(again.stdout) as { run: Run }).run.runId).toBe(run.runId);
    await settledRun(cli.client, run.runId);
  });

  it('exits 2 with usage when --input is not JSON', async () => {
    const result = await cli.wf(['run', 'start', 'cli-notes', '--input', '{topic: x}']);

    expect(result.code).toBe(2);
    expect(result.stderr).toMatch(/^wf: --input must be JSON/);
    expect(result.stderr).toContain(USAGE);
  });

  it('exits 2 naming the workflow when there is none by that name', async () => {
    const result = await cli.wf(['run', 'start', 'no-such-workflow']);

    expect(result.code).toBe(2);
    expect(result.stderr).toMatch(/^wf: no workflow named 'no-such-workflow'/);
  });
});

describe('wf run show / run transcript / audit verify', () => {
  it('run show prints status, trigger, turns, tokens and result; --json parses', async () => {
    const text = await cli.wf(['run', 'show', doneRunId]);
    const json = await cli.wf(['run', 'show', doneRunId, '--json']);

    expect(text.code).toBe(0);
    expect(text.lines[0]).toMatch(new RegExp(`^${doneRunId} {2}cli-notes v1 {2}done \\(end_turn\\)`));
    expect(text.lines).toContainEqual(
      expect.stringMatching(/^ {2}trigger: \{"type":"on_demand","caller":".+"/),
    );
    expect(text.lines).toContain(
      '  turns: 2 model call(s); tokens 900 in / 50 out; cache 0 read / 0 written',
    );
    expect(text.lines).toContain('  result: Recorded the note.');
    expect((JSON.parse(json.stdout) as { run: Run }).run).toMatchObject({
      runId: doneRunId,
      status: 'done',
      modelCalls: 2,
    });
  });

  it('run transcript prints each message, tool call and tool result; --json parses', async () => {
    const text = await cli.wf(['run', 'transcript', doneRunId]);
    const json = await cli.wf(['run', 'transcript', doneRunId, '--json']);

    expect(text.code).toBe(0);
    expect(text.lines).toContain('assistant: Recording the note.');
    expect(text.lines).toContain(`assistant: → notes_put {"name":"summary","value":"${NOTE_VALUE}"}`);
    expect(text.lines).toContainEqual(expect.stringMatching(/^user: ← /));
    expect(text.lines.at(-1)).toBe('assistant: Recorded the note.');
    expect((JSON.parse(json.stdout) as { messages: unknown[] }).messages.length).toBeGreaterThanOrEqual(4);
  });

  it("run receipts prints the run's side effect with its status and what a duplicate does; --json parses", async () => {
    const text = await cli.wf(['run', 'receipts', doneRunId]);
    const json = await cli.wf(['run', 'receipts', doneRunId, '--json']);

    expect(text).toMatchObject({ code: 0, stderr: '' });
    expect(text.lines).toHaveLength(1);
    expect(text.lines[0]).toMatch(
      /^turn 0 {2}notes_put {2}completed {2}key wf-[0-9a-f]{40} {2}args [0-9a-f]{12} {2}outcome [0-9a-f]{12} {2}\S+ → \S+ {2}duplicate: reuses the recorded outcome$/,
    );
    const body = JSON.parse(json.stdout) as {
      runId: string;
      items: { action: string; onDuplicate: string }[];
    };
    expect(body.runId).toBe(doneRunId);
    expect(body.items).toMatchObject([
      { action: 'notes_put', status: 'completed', onDuplicate: 'reuses_outcome' },
    ]);
  });

  it('audit verify exits 0 and counts the entries of an intact chain; --json parses', async () => {
    const text = await cli.wf(['audit', 'verify', doneRunId]);
    const json = await cli.wf(['audit', 'verify', doneRunId, '--json']);

    expect(text).toMatchObject({ code: 0, stderr: '' });
    expect(text.stdout).toMatch(
      /^audit chain verified: \d+ entries\nanchored in the owner's chain at seq \d+$/,
    );
    expect(JSON.parse(json.stdout)).toMatchObject({ ok: true, count: expect.any(Number) });
  });

  it('audit verify exits 4 and names the first broken entry when an entry was altered in the table', async () => {
    // Prepare: a run of its own, settled, then one stored entry changed behind the runtime's back.
    const result = await cli.wf(['run', 'start', 'cli-notes', '--json']);
    const { run } = JSON.parse(result.stdout) as { run: Run };
    await settledRun(cli.client, run.runId);
    // Still a well-formed entry (a malformed one is refused as unreadable before the chain is checked).
    await editStoredAuditEntry(cli.stack.store, run.runId, 3, (entry) => ({
      ...entry,
      at: '2020-01-01T00:00:00.000Z',
    }));

    // Act
    const text = await cli.wf(['audit', 'verify', run.runId]);
    const json = await cli.wf(['audit', 'verify', run.runId, '--json']);

    // Assess
    expect(text.code).toBe(4);
    expect(text.stdout).toBe(
      'audit chain BROKEN at entry 3: seq 3 (index 3): content does not match its hash',
    );
    expect(JSON.parse(json.stdout)).toMatchObject({ ok: false, firstBrokenSeq: 3, reason: 'hash_mismatch' });
    expect(json.code).toBe(4);
  });

  it('exits 1 with the API message for a run that does not exist', async () => {
    const result = await cli.wf(['run', 'show', 'run_doesnotexist00']);

    expect(result.code).toBe(1);
    expect(result.stderr).toMatch(/^wf: .*\(not_found, HTTP 404\)$/);
  });
});

describe('wf approvals list, with a run that waits for approval', () => {
  it('shows the pending approval, the gate decision and the wait; the run completes once approved', async () => {
    // Act: start and wait, while the approver decides through the page.
    const live: string[] = [];
    const waiting = cli.wf(['run', 'start', 'cli-gated', '--wait'], live);
    // The approver decides once the CLI has seen the run wait (it polls), as a person would.
    await eventually('the CLI to see the wait', async () =>
      live.find((line) => line.startsWith('waiting for approval')),
    );
    const link = await eventually(
      'the approval link',
      async () => cli.stack.inbox.notices().find((notice) => notice.workflowName === 'cli-gated')?.url,
    );
    const pending = await cli.wf(['approvals', 'list', '--status', 'pending']);
    const pendingJson = await cli.wf(['approvals', 'list', '--status', 'pending', '--json']);
    const decided = await decideThroughPage(link, 'approve');
    const result = await waiting;
    const approved = await cli.wf(['approvals', 'list', '--status', 'approved']);
    const all = await cli.wf(['approvals', 'list']);

    // Assess
    expect(pending.code).toBe(0);
    expect(pending.lines).toEqual([
      expect.stringMatching(
        /^apr_[A-Za-z0-9]+ {2}pending {2}notes_append {2}run run_[A-Za-z0-9]+ {2}expires \d{4}-\d\d-\d\dT/,
      ),
    ]);
    const items = (JSON.parse(pendingJson.stdout) as { items: Approval[] }).items;
    expect(items).toEqual([
      expect.objectContaining({
        status: 'pending',
        tool: 'notes_append',
        args: { name: 'log', line: 'deployed 2.4' },
      }),
    ]);
    expect(items[0]).not.toHaveProperty('taskToken');
    expect(decided.status).toBe(200);
    expect(result.code).toBe(0);
    expect(result.lines).toContain('  gate: notes_append → needs_approval');
    expect(result.lines).toContain(
      `waiting for approval: the approvers have their links (locally: ${cli.stack.url}/local/inbox)`,
    );
    expect(result.lines).toContain(`  approval approved by ${APPROVER}`);
    expect(result.lines).toContain('  dispatch: notes_append (approved)');
    expect(approved.lines).toEqual([expect.stringMatching(/^apr_[A-Za-z0-9]+ {2}approved notes_append/)]);
    expect(all.lines).toHaveLength(1);
  });

  it('says "no approvals" when there are none with that status', async () => {
    const result = await cli.wf(['approvals', 'list', '--status', 'expired']);

    expect(result).toMatchObject({ code: 0, stdout: 'no approvals' });
  });

  it('exits 1 with the field error for an unknown status', async () => {
    const result = await cli.wf(['approvals', 'list', '--status', 'maybe']);

    expect(result.code).toBe(1);
    expect(result.stderr).toMatch(/^wf: .*HTTP 400/);
    expect(result.stderr).toContain('status');
  });
});
