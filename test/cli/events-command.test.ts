/** `wf events put` against the local event bus: an event-triggered workflow starts once per event id. */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type CliStack, runsOf, settledRun, startCliStack } from './support.ts';
import { ALL_FIXTURES, EVENT_WORKFLOW } from './workflows.ts';

let cli: CliStack;
let workflowId: string;

type PutResult = {
  FailedEntryCount: number;
  Entries: { EventId: string }[];
  runs: { eventId: string; workflowId: string; runId: string; created: boolean }[];
};

beforeAll(async () => {
  cli = await startCliStack(ALL_FIXTURES);
  const applied = await cli.wf([
    'workflow',
    'apply',
    '-f',
    cli.file('cli-events.workflow.yaml', EVENT_WORKFLOW),
    '--json',
  ]);
  workflowId = (JSON.parse(applied.stdout) as { workflow: { workflowId: string } }).workflow.workflowId;
});

afterAll(async () => {
  // Let every started run finish before the stack goes away.
  for (const run of await runsOf(cli.client, workflowId)) await settledRun(cli.client, run.runId);
  await cli?.stop();
});

describe('wf events put', () => {
  it('starts one run per event id: the same --id again starts nothing new', async () => {
    // Act
    const first = await cli.wf([
      'events',
      'put',
      '--source',
      'com.example.cli',
      '--detail-type',
      'Ping',
      '--detail',
      '{"n":1}',
      '--id',
      'evt-cli-1',
      '--json',
    ]);
    const again = await cli.wf([
      'events',
      'put',
      '--source',
      'com.example.cli',
      '--detail-type',
      'Ping',
      '--detail',
      '{"n":1}',
      '--id',
      'evt-cli-1',
      '--json',
    ]);

    // Assess
    expect(first.code).toBe(0);
    expect(again.code).toBe(0);
    const a = JSON.parse(first.stdout) as PutResult;
    const b = JSON.parse(again.stdout) as PutResult;
    expect(a.Entries).toEqual([{ EventId: 'evt-cli-1' }]);
    expect(a.runs).toEqual([
      { eventId: 'evt-cli-1', workflowId, runId: expect.stringMatching(/^run_/), created: true },
    ]);
    expect(b.runs).toEqual([{ ...a.runs[0], created: false }]);
    const run = await settledRun(cli.client, a.runs[0]!.runId);
    expect(run).toMatchObject({
      status: 'done',
      trigger: { type: 'event', eventId: 'evt-cli-1', source: 'com.example.cli', detailType: 'Ping' },
    });
    expect(run.input).toMatchObject({
      id: 'evt-cli-1',
      source: 'com.example.cli',
      'detail-type': 'Ping',
      detail: { n: 1 },
    });
  });

  it('gives each event without --id a new id, so each starts its own run; the text output names them', async () => {
    const before = (await runsOf(cli.client, workflowId)).length;

    const one = await cli.wf(['events', 'put', '--source', 'com.example.cli', '--detail-type', 'Ping']);
    const two = await cli.wf(['events', 'put', '--source', 'com.example.cli', '--detail-type', 'Ping']);

    expect(one.code).toBe(0);
    expect(one.stdout).toMatch(
      /^event accepted; \[\{"eventId":"[^"]+","workflowId":"wf_[0-9a-f]+","runId":"run_[A-Za-z0-9]+","created":true\}\]$/,
    );
    expect(two.stdout).not.toBe(one.stdout);
    expect((await runsOf(cli.client, workflowId)).length).toBe(before + 2);
  });

  it('starts nothing for an event no workflow matches', async () => {
    const result = await cli.wf([
      'events',
      'put',
      '--source',
      'com.example.other',
      '--detail-type',
      'Ping',
      '--json',
    ]);

    expect(result.code).toBe(0);
    expect((JSON.parse(result.stdout) as PutResult).runs).toEqual([]);
  });

  it.each([
    [['events', 'put', '--detail-type', 'Ping'], 'missing --source'],
    [['events', 'put', '--source', 'com.example.cli'], 'missing --detail-type'],
    [
      ['events', 'put', '--source', 'com.example.cli', '--detail-type', 'Ping', '--detail', 'not json'],
      '--detail must be JSON',
    ],
  ])('exits 2 with usage for %j', async (argv, message) => {
    const result = await cli.wf(argv);

    expect(result.code).toBe(2);
    expect(result.stderr).toMatch(new RegExp(`^wf: ${message}`));
  });

  it('exits 1 with the field error when the API refuses the event', async () => {
    const result = await cli.wf(['events', 'put', '--source', 'aws.ec2', '--detail-type', 'Ping']);

    expect(result.code).toBe(1);
    expect(result.stderr).toMatch(/HTTP 400/);
    expect(result.stderr).toMatch(/aws\./);
  });
});

describe('wf whoami', () => {
  it('prints the owner of the API key and where its credential secrets must live', async () => {
    // Act
    const text = await cli.wf(['whoami']);
    const json = await cli.wf(['whoami', '--json']);

    // Assess
    expect(text.code).toBe(0);
    expect(text.lines).toEqual([
      'owner:      local',
      'principal:  local',
      'owner key:  local',
      'credential secrets: wf/local/<name>, tagged wf-owner=local',
    ]);
    expect(JSON.parse(json.stdout)).toEqual({
      owner: 'local',
      principal: 'local',
      ownerKey: 'local',
      secretPrefix: 'wf/local/',
    });
  });
});
