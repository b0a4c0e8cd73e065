/** Every example in docs/triggers.md is executed here, so the page cannot drift from the code. */
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import {
  EventEnvelopeSchema,
  matchesEventPattern,
  nextFireTimes,
  normalizePutEventsEntry,
  validateEventPattern,
  validateScheduleExpression,
} from '../../shared/triggers/index.ts';

const doc = readFileSync(new URL('../../docs/triggers.md', import.meta.url), 'utf8');

/** The lines of the section under a `###` heading, up to the next heading. */
function section(heading: string): string[] {
  const lines = doc.split('\n');
  const start = lines.indexOf(`### ${heading}`);
  if (start < 0) throw new Error(`docs/triggers.md has no section "${heading}"`);
  const end = lines.findIndex((line, index) => index > start && line.startsWith('#'));
  return lines.slice(start + 1, end < 0 ? undefined : end);
}

/** Table rows of a section (header and separator dropped), each cell trimmed and unwrapped from backticks. */
function tableRows(heading: string): string[][] {
  const rows = section(heading)
    .filter((line) => line.startsWith('|'))
    .map((line) =>
      line
        .slice(1, -1)
        .split('|')
        .map((cell) => cell.trim().replace(/^`(.*)`$/, '$1')),
    );
  return rows.slice(2);
}

function codeBlock(tag: string): unknown {
  const match = new RegExp(`\`\`\`json ${tag}\\n([\\s\\S]*?)\\n\`\`\``).exec(doc);
  if (match === null) throw new Error(`docs/triggers.md has no \`\`\`json ${tag} block`);
  return JSON.parse(match[1] ?? '');
}

describe('docs/triggers.md', () => {
  const operators = tableRows('Event patterns');
  it('documents an example for every operator', () => {
    expect(operators.length).toBeGreaterThanOrEqual(25);
  });

  it.each(operators)('%s: %s matches %s and not %s', (_operator, pattern, matching, notMatching) => {
    const parsedPattern: unknown = JSON.parse(pattern ?? '');
    expect(validateEventPattern(parsedPattern)).toEqual({ ok: true });
    expect(matchesEventPattern(parsedPattern, JSON.parse(matching ?? ''))).toBe(true);
    expect(matchesEventPattern(parsedPattern, JSON.parse(notMatching ?? ''))).toBe(false);
  });

  it.each(tableRows('Refused patterns'))('refuses %s at %s with "%s"', (pattern, path, message) => {
    const result = validateEventPattern(JSON.parse(pattern ?? ''));
    expect(result.ok).toBe(false);
    const errors = result.ok ? [] : result.errors;
    expect(errors).toContainEqual({
      path: path === '(root)' ? '' : path,
      message: expect.stringContaining(message ?? ''),
    });
  });

  it.each(tableRows('Schedule examples'))(
    '%s in %s (start %s) after %s fires at %s',
    (expression, zone, start, after, times) => {
      const expected = (times ?? '').split(', ');
      const options = start === '' ? {} : { startMs: Date.parse(start ?? '') };
      const actual = nextFireTimes(
        expression ?? '',
        zone ?? '',
        new Date(after ?? ''),
        expected.length,
        options,
      );
      expect(actual.map((date) => date.toISOString().replace('.000Z', 'Z'))).toEqual(expected);
    },
  );

  it.each(tableRows('Refused expressions'))('refuses %s in %s with "%s"', (expression, zone, message) => {
    const result = validateScheduleExpression(expression ?? '', zone ?? '');
    expect(result.ok).toBe(false);
    const messages = result.ok ? [] : result.errors.map((error) => error.message);
    expect(messages.some((text) => text.includes(message ?? ''))).toBe(true);
  });

  it('turns the documented PutEvents entry into the documented envelope', () => {
    const options = codeBlock('normalize-options') as { now: string; id: string };
    const result = normalizePutEventsEntry(codeBlock('putevents-entry') as never, {
      now: new Date(options.now),
      id: options.id,
    });
    const envelope = codeBlock('event-envelope');
    expect(result).toEqual({ ok: true, event: envelope });
    expect(EventEnvelopeSchema.safeParse(envelope).success).toBe(true);
  });
});
