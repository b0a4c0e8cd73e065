/**
 * Your own workflow offline (issue 17 item 3): `wf fixture init` then `wf run start --wait` to `done` with
 * nothing edited; a missing fixture says how to add one; record against a stand-in for the Anthropic API
 * (the scripted server: the recorder cannot tell), replay offline, and a changed prompt reported as drift.
 */
import { existsSync, mkdtempSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { startScriptedModelServer } from '../../shared/model/index.ts';
import type { ScriptedFixture } from '../../shared/model/scripted-fixture.ts';
import type { Run } from '../../shared/schemas/run.ts';
import { type CliStack, startCliStack, wf } from './support.ts';

const dir = mkdtempSync(join(tmpdir(), 'wf-offline-'));
const stacks: CliStack[] = [];
const closers: (() => Promise<void>)[] = [];

afterAll(async () => {
  for (const stack of stacks) await stack.stop();
  for (const close of closers) await close();
});

const workflowText = (name: string, system: string) => `name: ${name}
model: { id: claude-sonnet-5-5, maxTokens: 1024 }
prompt:
  system: ${system}
allowedActions: [notes_put, current_time]
trigger: { type: on_demand }
budget: { maxUsdPerRun: 1, maxTurns: 4 }
`;

const runOf = async (cli: CliStack, runId: string) =>
  (await cli.client.get<{ run: Run }>(`/v1/runs/${runId}`)).run;
const runIdIn = (lines: string[]) => /^started (run_[A-Za-z0-9]+)/.exec(lines[0] ?? '')?.[1] ?? '';

describe('wf fixture init, then an offline run', () => {
  it('runs a new workflow to done with the generated fixture and nothing edited', async () => {
    const project = mkdtempSync(join(dir, 'project-'));
    const file = join(project, 'status-digest.workflow.yaml');
    writeFileSync(file, workflowText('status-digest', 'Summarise the status.'));
    // The stack is up before the fixture exists: it reads its fixture directory again when asked.
    const cli = await startCliStack([], { fixtureDirs: [join(project, 'fixtures')] });
    stacks.push(cli);

    const init = await wf(['fixture', 'init', file]);
    const applied = await cli.wf(['workflow', 'apply', '-f', file]);
    const run = await cli.wf(['run', 'start', 'status-digest', '--wait']);

    expect(init.code).toBe(0);
    expect(init.stdout).toContain(join(project, 'fixtures', 'status-digest.fixture.json'));
    expect(applied.code).toBe(0);
    expect(run.code).toBe(0);
    expect(run.lines.at(-1)).toMatch(/status-digest v1 {2}done \(end_turn\)/);
    // A second init does not overwrite what the team may have edited.
    expect((await wf(['fixture', 'init', file])).stderr).toMatch(/exists: pass --force/);
    // A missing file is an error (exit 1, as docs/cli.md's exit statuses say), not a usage mistake (2).
    const missing = await wf(['fixture', 'init', join(project, 'nowhere.workflow.yaml')]);
    expect([missing.code, missing.stderr]).toEqual([1, expect.stringContaining('no workflow file')]);
  });

  it('a workflow without a fixture fails saying how to add one', async () => {
    const cli = stacks[0]!;
    const file = cli.file('no-fixture.workflow.yaml', workflowText('no-fixture', 'Anything.'));
    await cli.wf(['workflow', 'apply', '-f', file]);

    const result = await cli.wf(['run', 'start', 'no-fixture', '--wait']);
    const run = await runOf(cli, runIdIn(result.lines));

    expect(result.code).toBe(3);
    expect(run.error?.message).toMatch(/no fixture named \\+"no-fixture/);
    expect(run.error?.message).toMatch(/wf fixture init/);
  });
});

const apiStandIn: ScriptedFixture = {
  name: 'recorded-notes',
  turns: [
    {
      response: {
        content: [
          { type: 'text', text: 'Saving it.' },
          {
            type: 'tool_use',
            id: 'toolu_rec_1',
            name: 'notes_put',
            input: { name: 'status', value: 'green' },
          },
        ],
      },
    },
    { text: 'Saved the status: green.' },
  ],
} as ScriptedFixture;

describe('wf run start --record, then replay offline', () => {
  const recordings = join(dir, 'recordings');
  const file = join(dir, 'recorded-notes.workflow.yaml');

  it('records the conversation through the proxy and replays it with no API key', async () => {
    // Arrange: "the Anthropic API" is a scripted server; the stack has an API key and records.
    const api = await startScriptedModelServer({ fixtures: [apiStandIn] });
    closers.push(() => api.close());
    const live = await startCliStack([], {
      anthropicApiKey: 'sk-ant-test',
      anthropicBaseUrl: api.url,
      record: true,
    });
    stacks.push(live);
    writeFileSync(file, workflowText('recorded-notes', 'Save the status with notes_put.'));
    await live.wf(['workflow', 'apply', '-f', file]);

    const recorded = await live.wf(['run', 'start', 'recorded-notes', '--record', recordings]);
    const fixturePath = /recorded 2 turn\(s\) to (.+)$/m.exec(recorded.stdout)?.[1] ?? '';

    expect(recorded.code).toBe(0);
    expect(fixturePath).toMatch(/\/recordings\/recorded-notes\.[0-9a-f]{12}\.fixture\.json$/);
    expect(api.requests.map((r) => r.fixture)).toEqual(['recorded-notes', 'recorded-notes']);
    // The API saw the real key and no fixture header (the proxy strips it).
    expect(api.requests[0]?.headers.authorization).toBe('[redacted]');
    expect(api.requests[0]?.headers).not.toHaveProperty('x-scripted-fixture');
    expect(existsSync(fixturePath)).toBe(true);
    const fixture = JSON.parse(readFileSync(fixturePath, 'utf8')) as ScriptedFixture;
    expect(fixture.turns).toHaveLength(2);
    expect(fixture.turns[0]?.expect?.recorded?.system).toContain('Save the status with notes_put.');
    expect(fixture.turns[0]?.response?.content[1]).toEqual({
      type: 'tool_use',
      id: 'toolu_rec_1',
      name: 'notes_put',
      input: { name: 'status', value: 'green' },
    });

    // Act: replay offline, from the recordings directory only.
    const offline = await startCliStack([], { fixtureDirs: [recordings] });
    stacks.push(offline);
    await offline.wf(['workflow', 'apply', '-f', file]);
    const replayed = await offline.wf(['run', 'start', 'recorded-notes', '--wait']);

    expect(replayed.code).toBe(0);
    expect(replayed.lines.at(-1)).toMatch(/recorded-notes v1 {2}done/);

    // A changed prompt: the replay reports drift, naming the field.
    writeFileSync(file, workflowText('recorded-notes', 'Save the status, then say nothing.'));
    await offline.wf(['workflow', 'apply', '-f', file]);
    const drifted = await offline.wf(['run', 'start', 'recorded-notes', '--wait']);
    const run = await runOf(offline, runIdIn(drifted.lines));

    expect(drifted.code).toBe(3);
    expect(run.error?.message).toMatch(/drift: system changed since the recording/);
  });
});

describe('wf run start --record keeps one conversation per input', () => {
  const recordings = join(dir, 'several');
  const file = join(dir, 'several-notes.workflow.yaml');

  it('records two inputs as two conversations and replays each run with its own; another input is drift', async () => {
    // Arrange: the stand-in API answers every conversation alike; the recordings differ by their task.
    const api = await startScriptedModelServer({ fixtures: [{ ...apiStandIn, name: 'several-notes' }] });
    closers.push(() => api.close());
    const live = await startCliStack([], {
      anthropicApiKey: 'sk-ant-test',
      anthropicBaseUrl: api.url,
      record: true,
    });
    stacks.push(live);
    writeFileSync(file, workflowText('several-notes', 'Save the status with notes_put.'));
    await live.wf(['workflow', 'apply', '-f', file]);

    // Act: record two inputs, one named; then replay both, and a third input, offline.
    const alpha = await live.wf([
      ...['run', 'start', 'several-notes', '--input', '{"team":"alpha"}'],
      ...['--record', recordings, '--record-name', 'alpha'],
    ]);
    const beta = await live.wf([
      'run',
      'start',
      'several-notes',
      '--input',
      '{"team":"beta"}',
      '--record',
      recordings,
    ]);
    const badName = await live.wf([
      'run',
      'start',
      'several-notes',
      '--record',
      recordings,
      '--record-name',
      '../x',
    ]);
    const offline = await startCliStack([], { fixtureDirs: [recordings] });
    stacks.push(offline);
    await offline.wf(['workflow', 'apply', '-f', file]);
    const replays = await Promise.all(
      ['alpha', 'beta', 'gamma'].map((team) =>
        offline.wf(['run', 'start', 'several-notes', '--input', JSON.stringify({ team }), '--wait']),
      ),
    );
    const gamma = await runOf(offline, runIdIn(replays[2]!.lines));

    // Assess
    expect(alpha.code).toBe(0);
    expect(alpha.stdout).toMatch(/to .*\/several\/several-notes\.alpha\.fixture\.json$/m);
    expect(beta.stdout).toMatch(/to .*\/several\/several-notes\.[0-9a-f]{12}\.fixture\.json$/m);
    expect(badName.code).toBe(2);
    expect(badName.stderr).toMatch(/--record-name must be/);
    const saved = readdirSync(recordings).sort();
    expect(saved).toHaveLength(2);
    const firstUsers = saved.map(
      (name) =>
        (JSON.parse(readFileSync(join(recordings, name), 'utf8')) as ScriptedFixture).turns[0]?.expect
          ?.recorded?.firstUser,
    );
    expect(firstUsers.some((text) => text?.includes('alpha'))).toBe(true);
    expect(firstUsers.some((text) => text?.includes('beta'))).toBe(true);
    // Each replay passed its conversation's firstUser check: the server picked the right recording.
    expect(replays.map((result) => result.code)).toEqual([0, 0, 3]);
    expect(gamma.error?.message).toMatch(/drift: firstUser matches none of the 2 recorded conversations/);
  });
});
