/** `wf workflow apply --draft` and `wf workflow publish` against a local stack, through `main(argv, io)`. */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type CliStack, startCliStack } from './support.ts';
import { ALL_FIXTURES, NOTES_WORKFLOW } from './workflows.ts';

let cli: CliStack;

beforeAll(async () => {
  cli = await startCliStack(ALL_FIXTURES);
});

afterAll(async () => {
  await cli?.stop();
});

const renamed = (name: string) => NOTES_WORKFLOW.replace(/^name: .*$/m, `name: ${name}`);

describe('wf workflow apply --draft and wf workflow publish', () => {
  it('saves a draft, replaces it in place, keeps runs on the published version, then publishes it', async () => {
    // Prepare: a published version 1.
    const file = cli.file('drafts.workflow.yaml', renamed('cli-drafts'));
    await cli.wf(['workflow', 'apply', '-f', file]);

    // Act
    cli.file(
      'drafts.workflow.yaml',
      renamed('cli-drafts').replace('records one note.', 'records one note, v2.'),
    );
    const saved = await cli.wf(['workflow', 'apply', '-f', file, '--draft']);
    cli.file(
      'drafts.workflow.yaml',
      renamed('cli-drafts').replace('records one note.', 'records one note, v2b.'),
    );
    const replaced = await cli.wf(['workflow', 'apply', '-f', file, '--draft']);
    const unchanged = await cli.wf(['workflow', 'apply', '-f', file, '--draft']);
    const refused = await cli.wf(['workflow', 'apply', '-f', file]);
    const list = await cli.wf(['workflow', 'list']);
    const published = await cli.wf(['workflow', 'publish', 'cli-drafts']);
    const again = await cli.wf(['workflow', 'publish', 'cli-drafts']);

    // Assess
    expect(saved).toMatchObject({ code: 0, stderr: '' });
    expect(saved.stdout).toMatch(
      /^saved cli-drafts \(wf_\w+\) draft version 2; runs use version 1 until: wf workflow publish cli-drafts$/,
    );
    expect(replaced.stdout).toMatch(/draft version 2; runs use version 1/);
    expect(unchanged.stdout).toMatch(/is unchanged at draft version 2$/);
    expect(refused.code).toBe(1);
    expect(refused.stderr).toContain('draft_open, HTTP 409');
    expect(list.stdout).toMatch(/cli-drafts\s+v1 {2}enabled {2}draft v2/);
    expect(published.stdout).toMatch(
      /^published cli-drafts \(wf_\w+\) version 2: new runs and triggers use it$/,
    );
    expect(again).toMatchObject({ code: 2 });
    expect(again.stderr).toContain('cli-drafts has no open draft');
    const head = await cli.client.get<{ version: { status: string; definition: { description: string } } }>(
      `/v1/workflows/${published.stdout.match(/wf_\w+/)![0]}`,
    );
    expect(head.version.status).toBe('published');
  });

  it('refuses a draft of a workflow that does not exist yet (exit 2), sending nothing', async () => {
    const file = cli.file('new-draft.workflow.yaml', renamed('cli-never-created'));

    const result = await cli.wf(['workflow', 'apply', '-f', file, '--draft']);

    expect(result.code).toBe(2);
    expect(result.stderr).toContain("no workflow named 'cli-never-created' yet");
    expect((await cli.wf(['workflow', 'list'])).stdout).not.toContain('cli-never-created');
  });
});
