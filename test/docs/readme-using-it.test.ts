/**
 * The README's "Using it" commands against the CLI they call, offline: each `wf` command and flag is one the
 * CLI's usage names, the workflow file applied is valid, the run started is that file's workflow, its input is a
 * JSON object, and the local stack's address is the CLI's default. (Running them is what `wf local up` and
 * the CLI tests do; `npm start` runs the worked example end to end.)
 */
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { DEFAULT_LOCAL_URL } from '../../shared/cli/config.ts';
import { USAGE } from '../../shared/cli/main.ts';
import { parseWorkflowText } from '../../shared/workflow-file/index.ts';

const root = new URL('../../', import.meta.url);
const readme = readFileSync(new URL('README.md', root), 'utf8');
const block = /## Using it\n\n```sh\n([\s\S]*?)\n```/.exec(readme)?.[1] ?? '';
/** Each line's `wf` arguments (after `npm run wf --`) and its comment. */
const commands = block.split('\n').map((line) => {
  const [command = '', comment = ''] = line.split(/\s+# /);
  const args = [...command.replace(/^npm run wf -- /, '').matchAll(/'[^']*'|\S+/g)].map((m) =>
    m[0].replace(/^'|'$/g, ''),
  );
  return { args, comment };
});
const usageLine = (group: string, verb: string) =>
  USAGE.split('\n').find((line) => line.trim().startsWith(`wf ${group} ${verb}`)) ?? '';
const flagValue = (args: string[], flag: string) => args[args.indexOf(flag) + 1];

describe('README: using it', () => {
  it('has the four commands this test checks', () => {
    expect(commands.map(({ args }) => args.slice(0, 2).join(' '))).toEqual([
      'local up',
      'workflow apply',
      'run start',
      'audit verify',
    ]);
  });

  it.each(commands.map(({ args }) => [args.slice(0, 2).join(' '), args]))(
    '`wf %s` and its flags are in the CLI usage',
    (_command, args) => {
      const line = usageLine(args[0]!, args[1]!);
      expect(line).not.toBe('');
      for (const flag of args.filter((arg) => arg.startsWith('-')))
        expect(line).toMatch(new RegExp(`${flag}(?![\\w-])`));
    },
  );

  it('applies a valid workflow file, starts that workflow with a JSON object input, on the default address', () => {
    const [up, apply, start] = commands;
    expect(up?.comment).toContain(DEFAULT_LOCAL_URL);
    const parsed = parseWorkflowText(readFileSync(new URL(flagValue(apply!.args, '-f')!, root), 'utf8'));
    expect(parsed.ok).toBe(true);
    if (!parsed.ok) return;
    expect(start?.args[2]).toBe(parsed.definition.name);
    expect(JSON.parse(flagValue(start!.args, '--input')!)).toBeTypeOf('object');
  });
});
