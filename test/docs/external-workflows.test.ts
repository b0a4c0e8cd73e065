/**
 * docs/external-workflows.md checked against the code: the example is a valid external workflow whose engine
 * payload is the one the page describes, the field table names exactly the fields of the external schema
 * (docs/workflow.schema.json, generated from it), and the defaults and the `off` refusal are the code's.
 */
import { existsSync, readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { mapDomainError } from '../../shared/api/errors.ts';
import { EXTERNAL_MODES, type ExternalDefinition } from '../../shared/external/definition.ts';
import {
  CAPACITY_INITIAL_SECONDS,
  CAPACITY_MAX_SECONDS,
  MAX_OBSERVES,
  nextCapacityWaitSeconds,
} from '../../shared/external/run/backoff.ts';
import { externalPayloadFor, MAX_EXTERNAL_PAYLOAD_BYTES } from '../../shared/external/run/key.ts';
import { WorkflowNotRunnableError } from '../../shared/runs/start-run.ts';
import { ExternalRunSchema } from '../../shared/schemas/external-run.ts';
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

  it('the payload cap and its test are the code’s', () => {
    expect(field('payload')).toContain(`at most ${MAX_EXTERNAL_PAYLOAD_BYTES / 1024} KiB as UTF-8 JSON`);
    const test = /\(`(test\/[^`]+\.test\.ts)`\)/.exec(field('payload'))?.[1] ?? '';
    expect(existsSync(new URL(`../../${test}`, import.meta.url)), test).toBe(true);
  });

  it("the capacity table names the run's capacity record, and the back-off is the code's", () => {
    const fields = tableRows(PAGE, '| run field | meaning |').flatMap(([cell]) =>
      [...(cell ?? '').matchAll(/`(?:external\.capacity)?\.(\w+)`/g)].map((m) => m[1] as string),
    );
    const capacity = ExternalRunSchema.shape.capacity.def.innerType;
    expect(fields.sort()).toEqual(Object.keys(capacity.shape).sort());
    const flat = page.replace(/\s+/g, ' ');
    expect(flat).toContain(
      `**Back-off**: ${CAPACITY_INITIAL_SECONDS} s doubling to ${CAPACITY_MAX_SECONDS} s between attempts`,
    );
    expect(flat).toContain(`capped at ${CAPACITY_MAX_SECONDS} s`);
    // "60 s on deadlines up to about 33 hours": the longest deadline whose waits stay at the cap.
    const hours = Number(/60 s on deadlines up to about (\d+) hours/.exec(flat)?.[1]);
    const waitAt = (deadlineHours: number) =>
      nextCapacityWaitSeconds({
        previousSeconds: CAPACITY_MAX_SECONDS,
        retryAfterSeconds: undefined,
        rounds: 0,
        nowMs: 0,
        deadlineMs: deadlineHours * 3600_000,
      });
    expect([waitAt(hours), waitAt(hours + 1)]).toEqual([CAPACITY_MAX_SECONDS, expect.any(Number)]);
    expect(waitAt(hours + 1)).toBeGreaterThan(CAPACITY_MAX_SECONDS);
    expect(MAX_OBSERVES).toBe(2000);
  });

  it('the capacity proof names the test and the fixture script it runs', () => {
    const proof = /Proved on the local stack with the fixture engine \(`([^`]*)`\) by\s+`([^`]+)`/.exec(page);
    const file = proof?.[2] ?? '';
    const text = readFileSync(new URL(`../../${file}`, import.meta.url), 'utf8');
    for (const part of (proof?.[1] ?? '').split(', ')) expect(text, part).toContain(part);
  });
});
