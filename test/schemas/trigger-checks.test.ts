/**
 * A trigger's save-time checks (schemas/trigger-checks.ts) apply to definitions being saved, of every kind, and
 * not to stored ones: a stored version is read with the shapes, as it was checked when saved, so a rule added
 * later (or a time zone a runtime's ICU drops) never makes it unreadable, and functions that only read versions
 * do not bundle the checks (test/infra/read-path-bundles.test.ts).
 */
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import {
  AnyWorkflowDefinitionSchema,
  StoredWorkflowDefinitionSchema,
} from '../../shared/schemas/any-workflow.ts';
import { CheckedTriggerSchema } from '../../shared/schemas/trigger-checks.ts';

const example = (file: string) =>
  parse(readFileSync(new URL(`../../examples/${file}`, import.meta.url), 'utf8')) as Record<string, unknown>;

const definitions: [string, Record<string, unknown>][] = [
  ['agent', example('morning-news.workflow.yaml')],
  ['graph', example('refund-request.graph.yaml')],
  [
    'external',
    {
      kind: 'external',
      name: 'nightly-etl',
      engine: 'http-runtime',
      trigger: { type: 'on_demand' },
      budget: { maxUsdPerRun: 1 },
    },
  ],
];

const badSchedule = { type: 'schedule', expression: 'cron(61 7 * * ? *)', timezone: 'Mars/Olympus' };
const badPattern = { type: 'event', pattern: { source: 'not-an-array' } };

const issuePaths = (result: { success: boolean; error?: { issues: { path: PropertyKey[] }[] } }) =>
  (result.error?.issues ?? []).map((issue) => issue.path.join('.'));

describe('trigger save-time checks', () => {
  it.each(definitions)('accept the %s example as it is', (_kind, definition) => {
    expect(AnyWorkflowDefinitionSchema.safeParse(definition).success).toBe(true);
  });

  it.each(definitions)(
    'refuse a %s definition being saved with a bad schedule, naming each field',
    (_kind, definition) => {
      const result = AnyWorkflowDefinitionSchema.safeParse({ ...definition, trigger: badSchedule });
      expect(issuePaths(result).sort()).toEqual(['trigger.expression', 'trigger.timezone']);
    },
  );

  it.each(definitions)('refuse a %s definition being saved with a bad event pattern', (_kind, definition) => {
    const result = AnyWorkflowDefinitionSchema.safeParse({ ...definition, trigger: badPattern });
    expect(issuePaths(result).every((path) => path.startsWith('trigger.pattern'))).toBe(true);
    expect(issuePaths(result).length).toBeGreaterThan(0);
  });

  it.each(definitions)(
    'do not run on a stored %s definition: it reads back as saved',
    (_kind, definition) => {
      for (const trigger of [badSchedule, badPattern]) {
        const result = StoredWorkflowDefinitionSchema.safeParse({ ...definition, trigger });
        expect(result.success, JSON.stringify(result.error?.issues)).toBe(true);
        expect(result.data?.trigger).toEqual(trigger);
      }
    },
  );

  it('still parse the shape of a stored trigger: an unknown type or field is refused', () => {
    const [, agent] = definitions[0]!;
    for (const trigger of [{ type: 'webhook' }, { type: 'on_demand', at: 'noon' }]) {
      expect(StoredWorkflowDefinitionSchema.safeParse({ ...agent, trigger }).success).toBe(false);
    }
  });

  it('are the checks of CheckedTriggerSchema, which passes a good trigger unchanged', () => {
    const good = { type: 'schedule', expression: 'cron(0 7 * * ? *)', timezone: 'Europe/Berlin' };
    expect(CheckedTriggerSchema.parse(good)).toEqual(good);
    expect(CheckedTriggerSchema.safeParse(badSchedule).success).toBe(false);
  });
});
