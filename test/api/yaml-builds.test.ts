/**
 * YAML bodies: the Lambda bundles take `yaml` from its ES module build (LAMBDA_BUNDLE_ALIASES), the tests and
 * local mode from the CommonJS build Node resolves. Both must answer every body alike, with the options the
 * API parses with; and no body makes the parser write the caller's text to the logs.
 */
import { pathToFileURL } from 'node:url';
import { afterEach, describe, expect, it, vi } from 'vitest';
import * as nodeYaml from 'yaml';
import { LAMBDA_BUNDLE_ALIASES } from '../../infra/constructs/runtime-function.ts';
import { YAML_PARSE_OPTIONS, YAML_TO_JS_OPTIONS } from '../../shared/api/definition-body.ts';
import { apiHarness, definition, ownTableName } from './helpers.ts';

const bundledYaml = (await import(pathToFileURL(LAMBDA_BUNDLE_ALIASES.yaml!).href)) as typeof nodeYaml;

/** What a body reads as: its errors (message, line, column), or its value, or what `toJS` threw. */
function read(yaml: typeof nodeYaml, text: string): unknown {
  const document = yaml.parseDocument(text, YAML_PARSE_OPTIONS);
  if (document.errors.length > 0)
    return document.errors.map((error) => ({ message: error.message, at: error.linePos?.[0] }));
  try {
    return { value: document.toJS(YAML_TO_JS_OPTIONS) };
  } catch (error) {
    return { threw: (error as Error).message };
  }
}

const aliasBomb = `a: &a [x, x, x, x, x, x, x, x, x]\n${Array.from({ length: 6 }, (_, i) => `b${i}: &b${i} [${Array.from({ length: 9 }, () => (i === 0 ? '*a' : `*b${i - 1}`)).join(', ')}]`).join('\n')}\n`;

const BODIES: Record<string, string> = {
  'a definition': nodeYaml.stringify(
    definition({ trigger: { type: 'schedule', expression: 'rate(1 hour)' } }),
  ),
  'anchors and a merge-looking key': 'base: &b {x: 1}\nuse: *b\n"<<": 2\n',
  'scalars of the core schema':
    'a: 0x1F\nb: 1e3\nc: .nan\nd: null\ne: ~\nf: yes\ng: 2026-12-02\nh: !!str 12\n',
  'block scalars': 'a: |\n  one\n  two\nb: >-\n  folded\n  text\n',
  'an unclosed flow sequence': 'name: [unclosed\nmodel: x',
  'duplicate keys': 'name: a\nname: b\n',
  'a tab as indentation': 'a:\n\tb: 1\n',
  'two documents': 'a: 1\n---\nb: 2\n',
  'an unknown tag': 'a: !custom 1\n',
  'an undefined alias': 'a: *nowhere\n',
  'an alias bomb': aliasBomb,
  'a collection as a key': 'name: x\n? [a, b]\n: 1\n',
};

describe("the Lambda bundles' YAML build", () => {
  it.each(Object.entries(BODIES))('reads %s as the Node build does', (_label, text) => {
    expect(read(bundledYaml, text)).toEqual(read(nodeYaml, text));
  });
});

const h = apiHarness({ tableName: await ownTableName() });

describe('YAML bodies and the logs', () => {
  afterEach(() => vi.restoreAllMocks());

  it('names a collection key as an unknown field and writes nothing of it to the logs', async () => {
    const emitWarning = vi.spyOn(process, 'emitWarning');
    const warn = vi.spyOn(console, 'warn');
    const body = `${nodeYaml.stringify(definition())}? [secret, key]\n: 1\n`;
    const reply = await h.alice.postText('/v1/workflows', body, 'application/yaml');
    expect(reply.status).toBe(400);
    expect(reply.body.error.fields).toContainEqual({
      path: '(root)',
      message: "unknown field '[ secret, key ]'",
    });
    expect([...emitWarning.mock.calls, ...warn.mock.calls]).toEqual([]);
  });
});
