/** `wf workflow apply -f` and `wf workflow list` against a local stack, through `main(argv, io)`. */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseWorkflowText } from '../../shared/workflow-file/index.ts';
import { type CliStack, startCliStack } from './support.ts';
import { ALL_FIXTURES, BAD_WORKFLOW, NOTES_WORKFLOW } from './workflows.ts';

let cli: CliStack;

beforeAll(async () => {
  cli = await startCliStack(ALL_FIXTURES);
});

afterAll(async () => {
  await cli?.stop();
});

describe('wf workflow apply -f FILE', () => {
  it('creates the workflow, then reports it unchanged, then adds a version when the file changes', async () => {
    // Prepare
    const file = cli.file('cli-notes.workflow.yaml', NOTES_WORKFLOW);

    // Act
    const created = await cli.wf(['workflow', 'apply', '-f', file]);
    const unchanged = await cli.wf(['workflow', 'apply', '-f', file]);
    cli.file(
      'cli-notes.workflow.yaml',
      NOTES_WORKFLOW.replace('CLI test - records one note.', 'CLI test - records one note, v2.'),
    );
    const updated = await cli.wf(['workflow', 'apply', '--file', file]);

    // Assess
    expect(created).toMatchObject({ code: 0, stderr: '' });
    expect(created.stdout).toMatch(/^created cli-notes \(wf_[0-9a-f]+\), version 1 by local$/);
    expect(unchanged.code).toBe(0);
    expect(unchanged.stdout).toMatch(/^cli-notes \(wf_[0-9a-f]+\) is unchanged at version 1$/);
    expect(updated.code).toBe(0);
    expect(updated.stdout).toMatch(/^updated cli-notes \(wf_[0-9a-f]+\) to version 2 by local$/);
  });

  it('prints one line per field error and exits 1 for an invalid file, sending nothing', async () => {
    // Prepare
    const file = cli.file('bad.workflow.yaml', BAD_WORKFLOW);
    const expected = parseWorkflowText(BAD_WORKFLOW);
    if (expected.ok) throw new Error('the bad workflow parsed');

    // Act
    const result = await cli.wf(['workflow', 'apply', '-f', file]);
    const list = await cli.wf(['workflow', 'list']);

    // Assess
    expect(result.code).toBe(1);
    expect(result.lines[0]).toBe(`${file}: invalid workflow definition`);
    expect(result.lines.slice(1)).toEqual(
      expected.errors.map((error) => `  - ${error.path}: ${error.message}`),
    );
    expect(result.lines.slice(1).map((line) => line.split(':')[0])).toEqual([
      '  - name',
      '  - model.role',
      '  - prompt.system',
      '  - budget.maxUsdPerRun',
      '  - allowedActions[0]',
    ]);
    expect(list.stdout).not.toContain('Bad Name');
  });

  it('reports a YAML syntax error with its line and exits 1', async () => {
    const file = cli.file('dup.workflow.yaml', 'name: a\nname: b\n');

    const result = await cli.wf(['workflow', 'apply', '-f', file]);

    expect(result.code).toBe(1);
    expect(result.lines).toEqual([
      `${file}: invalid workflow definition`,
      expect.stringMatching(/^ {2}- \(file\): Map keys must be unique.*\(line 2, column 1\)$/),
    ]);
  });

  it('with --json prints the field errors as JSON and exits 1', async () => {
    const file = cli.file('bad.workflow.yaml', BAD_WORKFLOW);

    const result = await cli.wf(['workflow', 'apply', '-f', file, '--json']);

    expect(result.code).toBe(1);
    const body = JSON.parse(result.stdout) as {
      ok: boolean;
      file: string;
      errors: { path: string; message: string }[];
    };
    expect(body).toMatchObject({ ok: false, file });
    expect(body.errors.map((error) => error.path)).toContain('budget.maxUsdPerRun');
  });

  it('says which file is missing and exits 1', async () => {
    const result = await cli.wf(['workflow', 'apply', '-f', '/nonexistent/wf.yaml']);

    expect(result.code).toBe(1);
    expect(result.stderr).toMatch(/^wf: .*no such file.*\/nonexistent\/wf\.yaml/i);
  });
});

describe('wf workflow list', () => {
  it('lists each workflow with id, name, latest version and state; --json parses', async () => {
    // Prepare
    const file = cli.file('cli-notes.workflow.yaml', NOTES_WORKFLOW);
    await cli.wf(['workflow', 'apply', '-f', file]);

    // Act
    const text = await cli.wf(['workflow', 'list']);
    const json = await cli.wf(['workflow', 'list', '--json']);

    // Assess
    expect(text.code).toBe(0);
    expect(text.lines).toContainEqual(
      expect.stringMatching(/^wf_[0-9a-f]+ {2}cli-notes {16}v\d+ {2}enabled$/),
    );
    expect(json.code).toBe(0);
    const page = JSON.parse(json.stdout) as {
      items: { name: string; workflowId: string; latestVersion: number }[];
    };
    expect(page.items.map((workflow) => workflow.name)).toContain('cli-notes');
  });
});
