import { describe, expect, it } from 'vitest';
import { formFields } from '../../shared/graph/form.ts';
import { compileJsonSchema } from '../../shared/graph/json-schemas.ts';

const form = {
  type: 'object',
  properties: {
    approve: { type: 'boolean', title: 'Approve' },
    note: { type: 'string', format: 'long-text', description: 'Why' },
    reason: { type: 'string', enum: ['fraud', 'late', 'other'] },
    amount: { type: 'number', minimum: 0 },
    count: { type: 'integer' },
    name: { type: 'string', maxLength: 80 },
  },
  required: ['approve', 'reason'],
  additionalProperties: false,
};

describe('formFields', () => {
  it('lists each field with its kind, whether it is required, and its options', () => {
    expect(formFields(form)).toEqual({
      ok: true,
      fields: [
        { name: 'approve', kind: 'boolean', required: true, title: 'Approve' },
        { name: 'note', kind: 'long_text', required: false, description: 'Why' },
        { name: 'reason', kind: 'enum', required: true, options: ['fraud', 'late', 'other'] },
        { name: 'amount', kind: 'number', required: false },
        { name: 'count', kind: 'integer', required: false },
        { name: 'name', kind: 'text', required: false },
      ],
    });
  });

  it.each([
    [{ ...form, type: 'array' }, ['type'], "type 'object'"],
    [{ ...form, $defs: {} }, ['$defs'], "forms do not support '$defs'"],
    [{ type: 'object', properties: {} }, ['properties'], 'at least one field'],
    [
      { type: 'object', properties: { x: { type: 'string', enum: [1, 2] } } },
      ['properties', 'x'],
      'not a non-empty list of strings',
    ],
    [{ type: 'object', properties: { x: { type: 'object' } } }, ['properties', 'x'], 'has type "object"'],
    [
      { type: 'object', properties: { x: { type: 'number', format: 'money' } } },
      ['properties', 'x'],
      "uses 'format'",
    ],
  ])('refuses %j at %j', (bad, path, fragment) => {
    const result = formFields(bad as Record<string, unknown>);
    expect(result.ok).toBe(false);
    if (!result.ok)
      expect(result.issues).toContainEqual({ path, message: expect.stringContaining(fragment) });
  });

  it('validates a submission with the compiled schema (what a form page does server-side)', () => {
    const compiled = compileJsonSchema(form);
    if (!compiled.ok) throw new Error(compiled.message);
    expect(compiled.validate({ approve: true, reason: 'late', note: 'ok' })).toBe(true);
    expect(compiled.validate({ approve: 'yes', reason: 'late' })).toBe(false);
    expect(compiled.validate({ approve: true, reason: 'late', extra: 1 })).toBe(false);
  });
});

describe('compileJsonSchema', () => {
  it('compiles two schemas with the same $id but different content, each on its own', () => {
    const a = compileJsonSchema({
      $id: 'https://example.com/s',
      type: 'object',
      properties: { a: { type: 'string' } },
    });
    const b = compileJsonSchema({
      $id: 'https://example.com/s',
      type: 'object',
      properties: { a: { type: 'number' } },
    });
    if (!a.ok || !b.ok) throw new Error('did not compile');
    expect([a.validate({ a: 'x' }), b.validate({ a: 'x' })]).toEqual([true, false]);
  });

  it('answers the same schema twice with the same compiled function (a stored graph is checked on every read)', () => {
    const first = compileJsonSchema({ type: 'object', properties: { z: { type: 'integer' } } });
    const second = compileJsonSchema({ type: 'object', properties: { z: { type: 'integer' } } });
    expect(first.ok && second.ok && first.validate === second.validate).toBe(true);
  });
});
