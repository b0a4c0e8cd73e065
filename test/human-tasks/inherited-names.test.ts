/**
 * Form fields named like Object.prototype's members (`constructor`, `toString`, `hasOwnProperty`)
 * are fields like any other, through the page's POST: a missing one is required, a bad one is refused, a good one
 * is recorded as posted. (Before: Ajv judged a missing field by the inherited member, and a field's error was
 * dropped because the errors object already "had" it, so an empty or invalid submission was recorded.)
 */
import { describe, expect, it } from 'vitest';
import { createHumanTaskApp } from '../../shared/human-tasks/index.ts';
import { useSfnWire } from '../approvals-http/sfn-wire.ts';
import { nonceOf } from '../approvals-http/support.ts';
import { MANAGER, store, taskScenario } from './support.ts';

/** (`__proto__` is refused at save: a field name starts with a letter, shared/graph/form-field.ts.) */
const NAMES = ['constructor', 'toString', 'hasOwnProperty'];
/** Parsed from JSON, as a saved form is. */
const FORM = JSON.parse(
  JSON.stringify({
    type: 'object',
    properties: Object.fromEntries(
      NAMES.map((name) => [name, { type: 'string', title: name, minLength: 3 }]),
    ),
    required: NAMES,
    additionalProperties: false,
  }),
) as Record<string, unknown>;

const wire = useSfnWire();

async function submit(values: [string, string][]) {
  const s = await taskScenario(wire, { form: FORM });
  const app = createHumanTaskApp(s.deps);
  const link = s.linkOf(MANAGER);
  const page = await (await app.request(link.path)).text();
  const fields = [['t', link.token], ['nonce', nonceOf(page)], ...values.map(([n, v]) => [`f.${n}`, v])];
  const response = await app.request(`/human-tasks/${s.taskId}`, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams(fields).toString(),
  });
  return { response, html: await response.text(), task: await store.getHumanTask(s.taskId) };
}

describe('form fields named like Object.prototype members', () => {
  it('requires each one: an empty submission is refused, naming every field, and nothing is recorded', async () => {
    const { response, html, task } = await submit([]);
    expect(response.status).toBe(422);
    for (const name of NAMES) expect(html).toContain(`id="e-${name}">is required</p>`);
    expect(task?.status).toBe('open');
  });

  it('refuses a value that breaks its field rule', async () => {
    const { response, html, task } = await submit(
      NAMES.map((name) => [name, name === 'toString' ? 'ab' : 'abc']),
    );
    expect(response.status).toBe(422);
    expect(html).toContain('id="e-toString">must NOT have fewer than 3 characters</p>');
    // The valid fields show what was posted and no error (not Object.prototype's functions).
    expect(html).not.toContain('[native code]');
    expect(html).not.toContain('id="e-constructor"');
    expect(task?.status).toBe('open');
  });

  it('records a valid submission with each field as posted', async () => {
    const { response, task } = await submit(NAMES.map((name) => [name, `value of ${name}`]));
    expect(response.status).toBe(200);
    expect(task?.status).toBe('submitted');
    expect(Object.entries(task?.submission ?? {}).sort()).toEqual(
      NAMES.map((name) => [name, `value of ${name}`]).sort(),
    );
  });
});
