import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { stringify } from 'yaml';
import { wf } from '../cli/support.ts';
import { baseGrant, clientKey, type JobsStack, startJobsStack, textFixture } from './support.ts';

describe('wf grant and wf job', () => {
  let e2e: JobsStack;
  const asOwner = (argv: string[]) => wf([...argv, '--url', e2e.stack.url, '--api-key', e2e.stack.apiKey]);
  const asClient = (argv: string[]) =>
    wf([...argv, '--url', e2e.stack.url, '--api-key', clientKey('cli-bot')]);
  const grantFile = (name: string, grant: object) => {
    const path = join(e2e.dataDir, name);
    writeFileSync(path, stringify(grant));
    return path;
  };

  beforeAll(async () => {
    e2e = await startJobsStack([textFixture('job-helper', 'From the CLI.')], { clientIds: ['cli-bot'] });
  });
  afterAll(() => e2e.close());

  it('grants a client, runs its job to done, narrows, revokes, and shows the history', async () => {
    const created = await asOwner(['grant', 'create', 'cli-bot', '-f', grantFile('grant.yaml', baseGrant())]);
    expect(created).toMatchObject({ code: 0 });
    expect(created.stdout).toContain('cli-bot  v1');

    const dry = await asClient(['job', 'submit', '--prompt', 'Hi', '--tools', 'current_time', '--dry-run']);
    expect(dry.stdout).toBe(
      'dry run: model claude-sonnet-5-5, 5 turns, $1 per job, tools: current_time (allow)',
    );

    const done = await asClient(['job', 'submit', '--prompt', 'Say something.', '--wait', '--json']);
    expect(done.code).toBe(0);
    const { job } = JSON.parse(done.stdout);
    expect(job).toMatchObject({ status: 'done', result: { text: 'From the CLI.' } });
    expect((await asClient(['job', 'show', job.jobId])).stdout).toContain('From the CLI.');
    expect((await asClient(['job', 'list'])).stdout).toContain(`${job.jobId}  done`);
    expect((await asClient(['job', 'cancel', job.jobId])).stdout).toBe(
      `${job.jobId}: stopped nothing; now done`,
    );

    const unreadable = await asOwner(['grant', 'narrow', 'cli-bot', '-f', '/nonexistent/grant.yaml']);
    expect([unreadable.code, unreadable.stderr]).toEqual([1, expect.stringContaining('cannot read')]);

    const refused = await asClient(['job', 'submit', '--prompt', 'x', '--tools', 'http_request']);
    expect(refused.code).toBe(1);
    expect(refused.stderr).toContain('tools[0]');

    const narrowed = await asOwner([
      'grant',
      'narrow',
      'cli-bot',
      '-f',
      grantFile('narrow.yaml', baseGrant({ actions: ['current_time'] })),
      '--expected-version',
      '1',
    ]);
    expect(narrowed.stdout).toContain('cli-bot  v2');
    expect((await asOwner(['grant', 'revoke', 'cli-bot'])).stdout).toContain('v3  REVOKED');
    const history = await asOwner(['grant', 'history', 'cli-bot']);
    expect(history.lines.map((line) => line.split('  ').slice(0, 2).join(' '))).toEqual([
      'cli-bot v1',
      'cli-bot v2',
      'cli-bot v3',
    ]);
    expect((await asOwner(['grant', 'list'])).stdout).toContain('cli-bot  v3  REVOKED');
    expect((await asClient(['job', 'list'])).code).toBe(1);
  });

  it('takes the grant docs/jobs.md shows (examples/ci-bot.grant.yaml) as it is', async () => {
    const example = new URL('../../examples/ci-bot.grant.yaml', import.meta.url).pathname;
    const created = await asOwner(['grant', 'create', 'ci-bot', '-f', example]);
    expect(created).toMatchObject({ code: 0, stderr: '' });
    expect(created.stdout).toMatch(
      /^ci-bot {2}v1 {2}actions: fetch_url, current_time, notes_append {2}models: balanced, fast {2}concurrency 3, queue 50/,
    );
  });
});
