/** The one form reader (shared/graph/form.ts): the save check, the page's fields and their order, `x-order`. */
import { describe, expect, it } from 'vitest';
import { compileJsonSchema, formFields, readForm } from '../../shared/graph/index.ts';
import { validateWorkflowDefinition } from '../../shared/workflow-file/index.ts';
import { refundGraph } from './fixtures.ts';

const form = {
  type: 'object',
  properties: {
    approve: { type: 'boolean', title: 'Approve', default: true },
    note: { type: 'string', format: 'long-text', description: 'Why', maxLength: 500 },
    reason: { type: 'string', enum: ['fraud', 'late', 'other'], default: 'late' },
    amount: { type: 'number', minimum: 0 },
    count: { type: 'integer', maximum: 5, default: 1 },
    name: { type: 'string', minLength: 2 },
  },
  required: ['approve', 'reason'],
  additionalProperties: false,
};

describe('readForm', () => {
  it('reads each field with its kind, label, help, first value and bounds, by name without x-order', () => {
    expect(readForm(form)).toEqual({
      ok: true,
      fields: [
        { name: 'amount', label: 'amount', kind: 'number', required: false, minimum: 0 },
        { name: 'approve', label: 'Approve', kind: 'boolean', required: true, initial: 'true' },
        { name: 'count', label: 'count', kind: 'integer', required: false, initial: '1', maximum: 5 },
        { name: 'name', label: 'name', kind: 'text', required: false, minLength: 2 },
        { name: 'note', label: 'note', help: 'Why', kind: 'long_text', required: false, maxLength: 500 },
        {
          name: 'reason',
          label: 'reason',
          kind: 'enum',
          required: true,
          initial: '1',
          options: ['fraud', 'late', 'other'],
        },
      ],
    });
  });

  it('orders the fields x-order first, in its order, then the rest by name', () => {
    const ordered = formFields({ ...form, 'x-order': ['reason', 'note', 'approve'] });
    expect(ordered.map((field) => field.name)).toEqual([
      'reason',
      'note',
      'approve',
      'amount',
      'count',
      'name',
    ]);
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
    [{ type: 'object', properties: { x: { enum: ['a'] } } }, ['properties', 'x'], 'has type undefined'],
    [{ type: 'object', properties: { x: { type: 'object' } } }, ['properties', 'x'], 'has type "object"'],
    [
      { type: 'object', properties: { x: { type: 'number', format: 'money' } } },
      ['properties', 'x'],
      "uses 'format'",
    ],
    [
      { type: 'object', properties: { x: { type: 'string', format: 'email' } } },
      ['properties', 'x'],
      "forms know only 'long-text'",
    ],
    [
      { type: 'object', properties: { 'a-b': { type: 'string' } } },
      ['properties', 'a-b'],
      'a field name is a letter',
    ],
    [{ ...form, 'x-order': 'reason' }, ['x-order'], "a list of the form's field names"],
    [{ ...form, 'x-order': [1] }, ['x-order'], "a list of the form's field names"],
    [{ ...form, 'x-order': ['reason', 'ghost'] }, ['x-order', 1], "names 'ghost', which is not a field"],
    [{ ...form, 'x-order': ['reason', 'reason'] }, ['x-order', 1], "lists 'reason' more than once"],
  ])('refuses %j at %j', (bad, path, fragment) => {
    const result = readForm(bad);
    expect(result.ok).toBe(false);
    if (!result.ok)
      expect(result.issues).toContainEqual({ path, message: expect.stringContaining(fragment) });
    expect(() => formFields(bad)).toThrow('the form cannot be shown');
  });

  it('validates a submission with the compiled schema (what a form page does server-side)', () => {
    const compiled = compileJsonSchema(form);
    if (!compiled.ok) throw new Error(compiled.message);
    expect(compiled.validate({ approve: true, reason: 'late', note: 'ok' })).toBe(true);
    expect(compiled.validate({ approve: 'yes', reason: 'late' })).toBe(false);
    expect(compiled.validate({ approve: true, reason: 'late', extra: 1 })).toBe(false);
  });
});

describe('human_task forms at save time', () => {
  const errorsWithForm = (change: (form: Record<string, unknown>) => void) => {
    const graph = refundGraph();
    change(graph.nodes[2].form);
    const result = validateWorkflowDefinition(graph);
    return result.ok ? [] : result.errors;
  };

  it('accepts x-order naming the form’s fields', () => {
    expect(errorsWithForm((f) => Object.assign(f, { 'x-order': ['note', 'approve'] }))).toEqual([]);
  });

  it('refuses an x-order that names a field the form does not have, at its path', () => {
    const errors = errorsWithForm((f) => Object.assign(f, { 'x-order': ['approve', 'ghost'] }));
    expect(errors).toEqual([
      expect.objectContaining({
        path: 'nodes[2].form.x-order[1]',
        message: expect.stringContaining("x-order names 'ghost', which is not a field of the form"),
      }),
    ]);
  });

  it('refuses a field name the page cannot render', () => {
    const errors = errorsWithForm((f) =>
      Object.assign(f.properties as object, { 'my field': { type: 'string' } }),
    );
    expect(errors).toEqual([
      expect.objectContaining({
        path: expect.stringContaining('my field'),
        message: expect.stringContaining('a field name is a letter'),
      }),
    ]);
  });
});
