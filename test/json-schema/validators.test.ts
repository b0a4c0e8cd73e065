/** The shared JSON Schema validators: modes, the cache and its bound, and `$id` schemas at run time. */
import { describe, expect, it } from 'vitest';
import { parseStructuredOutput } from '../../shared/graph-run/structured-output.ts';
import { compileSchema, MAX_CACHED_VALIDATORS } from '../../shared/json-schema/index.ts';

const withId = (type: string) => ({
  $id: 'https://example.com/shared-id',
  type: 'object',
  properties: { a: { type } },
  required: ['a'],
});

describe('compileSchema', () => {
  it('refuses an unknown keyword in save mode and lets it pass in run mode', () => {
    const schema = { type: 'object', 'x-note': 'for people' };
    const save = compileSchema(schema, 'save');
    expect(save.ok).toBe(false);
    if (!save.ok)
      expect(save).toMatchObject({ problem: 'invalid', message: expect.stringContaining('x-note') });
    expect(compileSchema(schema, 'run').ok).toBe(true);
  });

  it('reports the first error in save mode and every error in run mode', () => {
    const schema = { type: 'object', properties: { a: { type: 'string' }, b: { type: 'number' } } };
    const errors = (mode: 'save' | 'run') => {
      const compiled = compileSchema(schema, mode);
      if (!compiled.ok) throw new Error(compiled.message);
      compiled.validate({ a: 1, b: 'x' });
      return compiled.validate.errors?.length;
    };
    expect([errors('save'), errors('run')]).toEqual([1, 2]);
  });

  it('refuses a schema over maxBytes, naming its size', () => {
    const compiled = compileSchema({ type: 'string', description: 'x'.repeat(100) }, 'save', {
      maxBytes: 50,
    });
    expect(compiled).toMatchObject({
      ok: false,
      problem: 'too_large',
      message: expect.stringMatching(/bytes.*50/),
    });
  });

  it.each(['constructor', 'toString', 'hasOwnProperty', '__proto__'])(
    'judges a property named %s by the data own fields only: left out, a required one is missing',
    (name) => {
      const schema = { type: 'object', properties: { [name]: { title: name } }, required: [name] };
      for (const mode of ['save', 'run'] as const) {
        const compiled = compileSchema(schema, mode);
        expect(compiled.ok && compiled.validate({})).toBe(false);
        expect(compiled.ok && compiled.validate.errors?.[0]?.keyword).toBe('required');
      }
    },
  );

  it('treats format as an annotation in both modes', () => {
    for (const mode of ['save', 'run'] as const) {
      const compiled = compileSchema({ type: 'string', format: 'email' }, mode);
      expect(compiled.ok && compiled.validate('not an email')).toBe(true);
    }
  });

  it('answers an equal schema with the same compiled function until it falls out of the bounded cache', () => {
    const schema = () => ({ type: 'object', properties: { cached: { type: 'integer' } } });
    const first = compileSchema(schema(), 'run');
    const again = compileSchema(schema(), 'run');
    expect(first.ok && again.ok && first.validate === again.validate).toBe(true);
    for (let i = 0; i <= MAX_CACHED_VALIDATORS; i++)
      compileSchema({ type: 'object', maxProperties: i }, 'run');
    const later = compileSchema(schema(), 'run');
    expect(first.ok && later.ok && first.validate !== later.validate).toBe(true);
  });

  it('keeps a recently used validator while older ones are evicted', () => {
    const hot = () => ({ type: 'object', properties: { hot: { type: 'string' } } });
    const first = compileSchema(hot(), 'save');
    for (let i = 0; i <= MAX_CACHED_VALIDATORS; i++) {
      compileSchema({ type: 'object', minProperties: i }, 'save');
      compileSchema(hot(), 'save');
    }
    const later = compileSchema(hot(), 'save');
    expect(first.ok && later.ok && first.validate === later.validate).toBe(true);
  });
});

describe('schemas with the same $id in a warm container', () => {
  it('validates agent outputs against each schema on its own', () => {
    const answer = '{"a": "text"}';
    expect(parseStructuredOutput(answer, withId('string'))).toEqual({ ok: true, output: { a: 'text' } });
    // A second schema object with the same $id (the same node read again, or another workflow's node).
    expect(parseStructuredOutput(answer, withId('string'))).toEqual({ ok: true, output: { a: 'text' } });
    expect(parseStructuredOutput(answer, withId('number'))).toMatchObject({
      ok: false,
      reason: expect.stringContaining("does not match the node's schema"),
    });
  });
});
