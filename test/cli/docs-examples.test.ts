/**
 * docs/cli.md stays true: every `wf` line in its shell blocks parses and reaches a known command (sent to a
 * loopback port where nothing listens, so it gets as far as the request and no further), and the page covers
 * every command and option of the usage text.
 */
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { USAGE } from '../../shared/cli/main.ts';
import { wf } from './support.ts';

const DOC = readFileSync(new URL('../../docs/cli.md', import.meta.url), 'utf8');
const UNREACHABLE = 'http://127.0.0.1:1';

/** Splits a shell command line into words: single and double quotes, no expansions. */
function words(line: string): string[] {
  const out: string[] = [];
  const pattern = /'([^']*)'|"((?:[^"\\]|\\.)*)"|(\S+)/g;
  for (const match of line.matchAll(pattern))
    out.push(match[1] ?? match[2]?.replaceAll(/\\(.)/g, '$1') ?? match[3]!);
  return out;
}

/** Every `wf …` line of the page's ```sh blocks. */
const EXAMPLES = [...DOC.matchAll(/^```sh\n([\s\S]*?)^```$/gm)]
  .flatMap((block) => block[1]!.split('\n'))
  .filter((line) => line.startsWith('wf '))
  .map((line) => ({ line, argv: words(line).slice(1) }));

/** The commands the usage text lists: `local up`, `workflow apply`, … */
// Two-word commands; an option in second place (`wf console --aws`) is not a subcommand.
const COMMANDS = [...USAGE.matchAll(/^ {2}wf (\w+) (\w[\w-]*)/gm)].map((match) => `${match[1]} ${match[2]}`);
const commandOf = (argv: string[]) =>
  argv
    .filter((word) => !word.startsWith('-'))
    .slice(0, 2)
    .join(' ');

/** Replaces any --url value with the unreachable one: an example must never reach a real stack. */
function offline(argv: string[]): string[] {
  const out = [...argv];
  const at = out.indexOf('--url');
  if (at >= 0) out[at + 1] = UNREACHABLE;
  return out;
}

describe('docs/cli.md examples', () => {
  it('has examples for every command of the usage text, and only for those', () => {
    expect(COMMANDS.length).toBeGreaterThanOrEqual(10);
    expect([...new Set(EXAMPLES.map((example) => commandOf(example.argv)))].sort()).toEqual(
      [...COMMANDS].sort(),
    );
  });

  it.each(EXAMPLES.map((example) => [example.line, example.argv] as const))('%s', async (_, argv) => {
    // Starting a stack, writing files or signing with AWS credentials is not for a docs check: --help parses.
    const offlineCommand = ['local up', 'fixture init', 'workflow validate'].includes(commandOf(argv));
    if (offlineCommand || argv.includes('--aws')) {
      const parsed = await wf([...argv, '--help']);
      expect(parsed.code).toBe(0);
      return;
    }

    const result = await wf(offline(argv), { WF_URL: UNREACHABLE, WF_API_KEY: 'wfl_docs_example_key' });

    // It parsed, found its arguments valid (files, JSON) and went to send its first request.
    expect(result.stderr).toBe(
      `wf: cannot reach the runtime at ${UNREACHABLE} (fetch failed); is it running? (wf local up)`,
    );
    expect(result.code).toBe(1);
  });
});

describe('docs/cli.md coverage', () => {
  const options = [...new Set([...USAGE.matchAll(/--[a-z-]+/g)].map((match) => match[0]))];

  it.each(COMMANDS)('has a section for `wf %s`', (command) => {
    expect(DOC).toContain(`## \`wf ${command.split(' ').slice(0, 2).join(' ')}\``);
  });

  it.each(options)('documents the option %s', (option) => {
    expect(DOC).toMatch(new RegExp(`\`${option}( [A-Z]+)?\``));
  });

  it('documents every exit status of the usage text', () => {
    const statuses = [...USAGE.matchAll(/(\d) (?:ok|error|usage|run ended not done|audit broken)/g)].map(
      (match) => match[1],
    );

    expect(statuses).toEqual(['0', '1', '2', '3', '4']);
    for (const status of statuses) expect(DOC).toMatch(new RegExp(`\\| \`${status}\` +\\|`));
  });
});
