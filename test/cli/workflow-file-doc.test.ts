/**
 * docs/workflow-file.md stays true: every YAML/JSON block parses as the page says (complete examples valid,
 * fragments valid inside a minimal workflow, invalid examples with exactly the errors shown), every field of
 * the JSON Schema is documented, and the example files it lists are valid.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { parseWorkflowText } from '../../shared/workflow-file/index.ts';

// Agent workflow fields are documented in workflow-file.md, graph and external ones in their own pages.
const DOC = ['workflow-file.md', 'graph-workflows.md', 'external-workflows.md']
  .map((file) => readFileSync(new URL(`../../docs/${file}`, import.meta.url), 'utf8'))
  .join('\n');
const SCHEMA = JSON.parse(
  readFileSync(new URL('../../docs/workflow.schema.json', import.meta.url), 'utf8'),
) as Schema;
const EXAMPLES = new URL('../../examples/', import.meta.url);

type Block = { info: string; text: string; line: number };

/** Fenced blocks in order, with their info strings ("yaml", "yaml fragment", "text", …). */
function blocks(markdown: string): Block[] {
  const out: Block[] = [];
  const fence = /^```([^\n]*)\n([\s\S]*?)^```$/gm;
  for (const match of markdown.matchAll(fence)) {
    out.push({
      info: match[1]!.trim(),
      text: match[2]!,
      line: markdown.slice(0, match.index).split('\n').length,
    });
  }
  return out;
}

const ALL = blocks(DOC);
const label = (block: Block) => `line ${block.line} (${block.info})`;
const complete = ALL.filter((block) => block.info === 'yaml' || block.info === 'json');
const fragments = ALL.filter((block) => block.info === 'yaml fragment');
const invalid = ALL.flatMap((block, index) =>
  block.info === 'yaml invalid' ? [{ block, errors: ALL[index + 1] }] : [],
);

/** A minimal valid workflow a fragment's top-level fields replace. */
const BASE = {
  name: 'fragment-check',
  model: { role: 'balanced' },
  prompt: { system: 'Check a fragment.' },
  allowedActions: ['current_time'],
  trigger: { type: 'on_demand' },
  budget: { maxUsdPerRun: 0.1 },
};

describe('docs/workflow-file.md examples', () => {
  it('has complete examples, fragments and invalid examples to check', () => {
    expect(complete.length).toBeGreaterThanOrEqual(3);
    expect(fragments.length).toBeGreaterThanOrEqual(10);
    expect(invalid.length).toBeGreaterThanOrEqual(2);
    // Every YAML/JSON block is one of the three kinds: none escapes the checks below.
    const checked = new Set(['yaml', 'json', 'yaml fragment', 'yaml invalid']);
    expect(
      ALL.filter((block) => /^(yaml|json)/.test(block.info) && !checked.has(block.info)).map(label),
    ).toEqual([]);
  });

  it.each(complete.map((block) => [label(block), block] as const))('%s is a valid workflow', (_, block) => {
    const result = parseWorkflowText(block.text);

    expect(result.ok ? [] : result.errors).toEqual([]);
  });

  it.each(fragments.map((block) => [label(block), block] as const))(
    '%s is valid inside a minimal workflow',
    (_, block) => {
      const fragment = parse(block.text) as Record<string, unknown>;

      const result = parseWorkflowText(JSON.stringify({ ...BASE, ...fragment }));

      expect(result.ok ? [] : result.errors).toEqual([]);
    },
  );

  it.each(invalid.map(({ block, errors }) => [label(block), block, errors] as const))(
    '%s fails with exactly the errors shown under it',
    (_, block, errors) => {
      const result = parseWorkflowText(block.text);

      expect(errors?.info).toBe('text');
      expect(result.ok).toBe(false);
      const shown = (errors?.text ?? '').trim().split('\n');
      expect(result.ok ? [] : result.errors.map((error) => `${error.path}: ${error.message}`)).toEqual(shown);
    },
  );

  it('shows the yaml-language-server line that points editors at the JSON Schema', () => {
    expect(DOC).toContain('# yaml-language-server: $schema=../docs/workflow.schema.json');
    expect(DOC).toContain('(workflow.schema.json)');
  });
});

type Schema = {
  properties?: Record<string, Schema>;
  items?: Schema;
  additionalProperties?: Schema | boolean;
  anyOf?: Schema[];
  oneOf?: Schema[];
  allOf?: Schema[];
};

/** Every property name the JSON Schema declares, at any depth (record keys are free names, so not included). */
function propertyNames(schema: Schema, out = new Set<string>()): Set<string> {
  for (const [name, child] of Object.entries(schema.properties ?? {})) {
    out.add(name);
    propertyNames(child, out);
  }
  for (const child of [...(schema.anyOf ?? []), ...(schema.oneOf ?? []), ...(schema.allOf ?? [])])
    propertyNames(child, out);
  if (schema.items) propertyNames(schema.items, out);
  if (typeof schema.additionalProperties === 'object') propertyNames(schema.additionalProperties, out);
  return out;
}

describe('docs/workflow-file.md coverage', () => {
  const names = [...propertyNames(SCHEMA)].sort();

  it('finds the fields of the schema', () => {
    expect(names).toEqual(
      expect.arrayContaining([
        'name',
        'model',
        'maxTokens',
        'credRefs',
        'signatureHeader',
        'runTimeoutSeconds',
      ]),
    );
  });

  it.each(names)('documents the field `%s`', (name) => {
    // As `name`, or qualified as `parent.name`.
    const escaped = name.replaceAll('$', '\\$');
    expect(DOC).toMatch(new RegExp(`\`([A-Za-z]+\\.)*${escaped}\``));
  });
});

describe('examples/ workflow files', () => {
  const files = readdirSync(EXAMPLES).filter((name) => /\.workflow\.(ya?ml|json)$/.test(name));

  it('are all listed on the page', () => {
    expect(files.length).toBeGreaterThanOrEqual(3);
    for (const file of files) expect(DOC).toContain(`(../examples/${file})`);
  });

  it.each(files)('%s is valid and points editors at the schema', (file) => {
    const text = readFileSync(new URL(file, EXAMPLES), 'utf8');

    const result = parseWorkflowText(text);

    expect(result.ok ? [] : result.errors).toEqual([]);
    expect(text).toMatch(
      file.endsWith('.json')
        ? /"\$schema": "\.\.\/docs\/workflow\.schema\.json"/
        : /^# yaml-language-server: \$schema=\.\.\/docs\/workflow\.schema\.json$/m,
    );
  });
});
