/**
 * docs/external-workflows.md checked against the code: the example is a valid external workflow whose engine
 * payload is the one the page describes, the field table names exactly the fields of the external schema
 * (docs/workflow.schema.json, generated from it), and the defaults and the `off` refusal are the code's.
 */
import { describe, expect, it } from 'vitest';
import { mapDomainError } from '../../shared/api/errors.ts';
import { EXTERNAL_MODES, type ExternalDefinition } from '../../shared/external/definition.ts';
import { externalPayloadFor } from '../../shared/external/run/key.ts';
import { WorkflowNotRunnableError } from '../../shared/runs/start-run.ts';
import { parseWorkflowText } from '../../shared/workflow-file/index.ts';
import { fencedBlocks, pageText, tableRows } from './fenced-blocks.ts';

const PAGE = 'external-workflows.md';
const page = pageText(PAGE);
type Property = { default?: unknown; enum?: string[]; properties?: Record<string, Property> };
const external = (
  JSON.parse(pageText('workflow.schema.json')) as {
    oneOf: { properties: Record<string, Property & { const?: string }> }[];
  }
).oneOf.find((variant) => variant.properties.kind?.const === 'external')?.properties as Record<
  string,
  Property
>;
const rows = tableRows(PAGE, '| field | meaning |');
const field = (name: string) => rows.find(([cell]) => cell === `\`${name}\``)?.[1] ?? '';

function example(): ExternalDefinition {
  const result = parseWorkflowText(fencedBlocks(PAGE)[0]?.body ?? '');
  expect(result.ok ? [] : result.errors).toEqual([]);
  return (result as { definition: ExternalDefinition }).definition;
}

describe('docs/external-workflows.md', () => {
  it('has the one block this file checks', () => {
    expect(fencedBlocks(PAGE).map((block) => block.info)).toEqual(['yaml']);
  });

  it('the example is a valid external workflow; the engine gets the payload the page shows', () => {
    const definition = example();
    expect(definition.kind).toBe('external');
    const shown = /the engine gets\s`(\{.*?\})`/.exec(page)?.[1] ?? '';
    const input = { commit: 'abc123' };
    expect(externalPayloadFor(definition, input)).toEqual(
      JSON.parse(shown.replace('<the run input>', JSON.stringify(input))),
    );
    // "its `result.json` artifact is the run's result, and the CI token is injected": the slot is declared.
    expect(page).toContain(`its \`${definition.resultArtifact}\` artifact is the run's`);
    expect(Object.keys(definition.credRefs)).toContain(definition.credential);
  });

  it("the field table and the intro's shared fields are exactly the external schema's fields", () => {
    const shared = /Every field an agent\nworkflow shares \(([^)]*)\)/.exec(page)?.[1] ?? '';
    const documented = [
      ...rows.map(([cell]) => (cell ?? '').replace(/`/g, '')).filter((name) => !name.includes('.')),
      ...[...shared.matchAll(/`(\w+)`/g)].map((m) => m[1] as string),
    ];
    expect(documented.sort()).toEqual(
      Object.keys(external)
        .filter((name) => name !== '$schema')
        .sort(),
    );
    const observe = rows.flatMap(([cell]) => /^`observe\.(\w+)`$/.exec(cell ?? '')?.[1] ?? []);
    expect(observe.sort()).toEqual(Object.keys(external.observe?.properties ?? {}).sort());
  });

  it('the modes and defaults the table gives are the schema’s', () => {
    const modes = [...field('mode').matchAll(/(?:^|\), )`(\w+)`/g)].map((m) => m[1]);
    expect(modes).toEqual([...EXTERNAL_MODES]);
    expect(field('mode')).toMatch(new RegExp(`^\`${external.mode?.default}\` \\(default`));
    for (const [name, property] of Object.entries(external.observe?.properties ?? {}))
      expect(field(`observe.${name}`), name).toContain(`(default ${property.default})`);
  });

  it('a run of an `off` workflow is refused with the 409 the page names', () => {
    const answer = mapDomainError(new WorkflowNotRunnableError('wf_1', 'mode_off', 'mode is off'));
    expect(field('mode')).toContain(`\`${answer?.status} ${answer?.code}\``);
  });
});
