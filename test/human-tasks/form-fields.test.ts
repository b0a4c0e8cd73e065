/** Which forms the page can show (checkFormSchema, for save-time validation) and in which order. */
import { describe, expect, it } from 'vitest';
import { checkFormSchema, formFields } from '../../shared/human-tasks/index.ts';
import { FORM } from './support.ts';

describe('form fields', () => {
  it('reads each field kind, in x-order then by name', () => {
    const fields = formFields(FORM);
    expect(fields.map((f) => [f.name, f.kind, f.required])).toEqual([
      ['decision', 'enum', true],
      ['reference', 'text', true],
      ['note', 'long_text', false],
      ['amount', 'number', false],
      ['copies', 'integer', false],
      ['urgent', 'boolean', false],
    ]);
    expect(checkFormSchema(FORM)).toEqual([]);
  });

  it.each([
    [{ type: 'array' }, 'form must be a JSON Schema with type "object" and properties'],
    [{ type: 'object', properties: {} }, 'form must declare at least one field'],
    [
      { type: 'object', properties: { a: { type: 'object' } } },
      'field a: type must be string, number, integer or boolean, or an enum',
    ],
    [
      { type: 'object', properties: { a: { type: 'string', format: 'email' } } },
      'field a: format "email" is not supported (only "long-text")',
    ],
    [
      { type: 'object', properties: { a: { enum: [{ x: 1 }] } } },
      'field a: enum must list strings, numbers or booleans',
    ],
    [
      { type: 'object', properties: { 'a-b': { type: 'string' } } },
      'field name "a-b" must be a letter, then letters, digits or _',
    ],
    [
      { type: 'object', properties: { a: { type: 'string' } }, required: ['b'] },
      'required field b is not declared',
    ],
    [
      { type: 'object', properties: { a: { type: 'string' } }, 'x-order': ['b'] },
      'x-order names an undeclared field b',
    ],
  ])('refuses %j naming the problem', (form, problem) => {
    expect(checkFormSchema(form)).toContain(problem);
    expect(() => formFields(form)).toThrow(problem);
  });
});
