/**
 * Every fenced block of docs/local-development.md: the workflow file validates and gets a fixture through the
 * real `wf`, every `wf` line parses (and is sent to a port where nothing listens), the drift error is the
 * scripted server's.
 */
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { ADD_FIXTURE_HINT } from '../../shared/model/fixture-dir.ts';
import { ScriptedFixtureSchema } from '../../shared/model/scripted-fixture.ts';
import { startScriptedModelServer } from '../../shared/model/scripted-server.ts';
import { wf } from '../cli/support.ts';
import { postMessages } from '../model/helpers.ts';
import { blockWith, fencedBlocks } from './fenced-blocks.ts';

const PAGE = 'local-development.md';
const UNREACHABLE = 'http://127.0.0.1:1';
const dir = mkdtempSync(join(tmpdir(), 'wf-docs-localdev-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const workflowBlock = blockWith(PAGE, 'name: status-digest');
const workflowPath = join(
  dir,
  'workflows',
  (/^# workflows\/(.*)$/m.exec(workflowBlock.body)?.[1] ?? '').trim(),
);

// The page's workflow file, written where its commands find it.
mkdirSync(join(dir, 'workflows'), { recursive: true });
writeFileSync(workflowPath, workflowBlock.body);

/** Every `$ wf …` line of the page's text blocks, as argv (env assignments, `cd … &&`, `&` and comments dropped). */
const commands = fencedBlocks(PAGE)
  .filter((block) => block.info === 'text')
  .flatMap((block) => block.body.split('\n'))
  .filter((line) => line.startsWith('$ '))
  .map((line) =>
    line
      .slice(2)
      .replace(/\s+#.*$/, '')
      .replace(/^cd \S+ && /, '')
      .replace(/^\w+=\S+ /, '')
      .replace(/ &$/, ''),
  );
const words = (line: string) =>
  [...line.matchAll(/'([^']*)'|(\S+)/g)].map((match) => match[1] ?? (match[2] as string));
/** Paths of the page made real: the workflow file and the fixtures directory in the temporary directory. */
const local = (argv: string[]) =>
  argv.map((word) =>
    word.endsWith('.workflow.yaml')
      ? workflowPath
      : word.endsWith('fixtures')
        ? join(dir, 'workflows', 'fixtures')
        : word,
  );

describe('docs/local-development.md', () => {
  it('has the seven blocks this file checks', () => {
    expect(fencedBlocks(PAGE).map((block) => block.info)).toEqual([
      'yaml',
      'text',
      'text',
      'text',
      'text',
      'text',
      'text',
    ]);
  });

  it('the workflow file validates and `wf fixture init` writes the fixture the page shows', async () => {
    const validate = /`(wf workflow validate -f \S+)`/.exec(
      readFileSync(new URL(`../../docs/${PAGE}`, import.meta.url), 'utf8'),
    )?.[1];
    const validated = await wf(local(words(validate ?? '').slice(1)));
    expect(validated.stderr).toBe('');
    expect(validated.code).toBe(0);

    const init = blockWith(PAGE, '$ wf fixture init').body.split('\n');
    const result = await wf(local(words(init[0]?.slice(2) ?? '').slice(1)));
    expect(result.code).toBe(0);
    const shown = (init[1] ?? '').replace('workflows/', `${join(dir, 'workflows')}/`);
    const [before, after] = shown.split('…');
    expect(result.stdout.startsWith(before ?? '')).toBe(true);
    expect(result.stdout.endsWith(after ?? '')).toBe(true);
    const written = JSON.parse(
      readFileSync(join(dir, 'workflows', 'fixtures', 'status-digest.fixture.json'), 'utf8'),
    );
    expect(ScriptedFixtureSchema.safeParse(written).success).toBe(true);
  });

  it('lists the commands of the walk-through', () => {
    expect(commands.length).toBe(10);
  });

  it.each(commands.filter((line) => !line.startsWith('wf fixture init')))('%s', async (line) => {
    const argv = local(words(line).slice(1));
    if (argv[0] === 'local') {
      // Starting a stack is not for a docs check: with --help the command and its options still parse.
      expect((await wf([...argv, '--help'])).code).toBe(0);
      return;
    }
    const result = await wf(argv, { WF_URL: UNREACHABLE, WF_API_KEY: 'wfl_docs_example_key' });
    expect(result.stderr).toBe(
      `wf: cannot reach the runtime at ${UNREACHABLE} (fetch failed); is it running? (wf local up)`,
    );
    expect(result.code).toBe(1);
  });

  it('the recording line is the one `wf run start --record` prints', () => {
    const line = blockWith(PAGE, 'recorded 2 turn(s) to').body.split('\n').at(-1) ?? '';
    const code = readFileSync(new URL('../../shared/cli/record.ts', import.meta.url), 'utf8');
    expect(line).toMatch(/^recorded \d+ turn\(s\) to \S+\.fixture\.json$/);
    expect(code).toContain(['`recorded $', '{fixture.turns.length} turn(s) to $', '{path}`'].join(''));
  });

  it("the missing-fixture error is what the local stack's scripted server answers", async () => {
    const text = readFileSync(new URL(`../../docs/${PAGE}`, import.meta.url), 'utf8').replaceAll('\n', ' ');
    const quoted = /fails with the error ``(.*?)``\./.exec(text)?.[1] ?? '';
    const server = await startScriptedModelServer({
      fixtures: [{ name: 'other', turns: [{ text: 'ok' }] }],
      reload: () => [],
      missingHint: ADD_FIXTURE_HINT,
    });
    try {
      await postMessages(
        server,
        { model: 'claude-sonnet-5-5', max_tokens: 64, messages: [{ role: 'user', content: 'go' }] },
        { 'x-scripted-fixture': 'X' },
      );
      const message = server.failures[0]?.message ?? '';
      const parts = quoted.split('…').map((part) => part.trim());
      expect(parts.length).toBe(3);
      let at = 0;
      for (const part of parts) {
        const found = message.indexOf(part, at);
        expect(found, `"${part}" in order in: ${message}`).toBeGreaterThanOrEqual(at);
        at = found + part.length;
      }
    } finally {
      await server.close();
    }
  });

  it('the drift error is what the scripted server answers a changed system prompt', async () => {
    const quoted = blockWith(PAGE, 'drift: system changed').body.replace('\n', ' ');
    const recorded = /\(recorded "(.*)", now "(.*)"\)$/.exec(quoted);
    const server = await startScriptedModelServer({
      fixtures: [
        { name: 'status-digest', turns: [{ expect: { recorded: { system: recorded?.[1] } }, text: 'ok' }] },
      ],
    });
    try {
      await postMessages(server, {
        model: 'claude-sonnet-5-5',
        max_tokens: 64,
        system: recorded?.[2],
        messages: [{ role: 'user', content: 'go' }],
      });
      expect(server.failures.map((failure) => failure.message)).toEqual([quoted]);
    } finally {
      await server.close();
    }
  });
});
