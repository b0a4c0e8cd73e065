/**
 * A step output parsed from JSON that DynamoDB cannot hold in the step item: an empty field name ("Empty
 * attribute name"), a number below 1e-130 ("Number underflow"), an integer past 2^53 (the document client's
 * refusal) — https://docs.aws.amazon.com/amazondynamodb/latest/developerguide/Constraints.html#limits-data-types.
 * A service step's answer is then kept as `{ text }`; an agent or external step's structured output fails the
 * step naming the field. Before, the write that ends the step was refused after the call was made.
 */
import { describe, expect, it } from 'vitest';
import { outputOf } from '../../shared/graph-run/service-dispatch.ts';
import { parseStructuredOutput } from '../../shared/graph-run/structured-output.ts';
import type { GraphStep } from '../../shared/schemas/graph-step.ts';
import { FixedClock, seedRun, seedWorkflow, testStore } from '../support/store.ts';
import { reviewGraph } from './fixtures.ts';

const unstorable = [
  ['an empty field name', '{"": 1, "ok": true}', 'output has an empty field name'],
  ['a number below 1e-130', '{"rate": 1e-200}', 'output.rate is too small to store'],
  [
    'an integer past 2^53',
    '{"order": {"id": 12345678901234567890}}',
    'output.order.id is too large to store',
  ],
] as const;

describe('a JSON step output DynamoDB cannot hold', () => {
  it.each(unstorable)('with %s: a service step keeps the answer as text', (_, body) => {
    expect(outputOf(body)).toEqual({ text: body });
    const http = `HTTP/1.1 200 OK\ncontent-type: application/json\n\n${body}`;
    expect(outputOf(http)).toEqual({ text: http });
  });

  it('keeps a JSON answer DynamoDB can hold as it is', () => {
    expect(outputOf('{"id": 9007199254740991, "rate": 1e-130}')).toEqual({
      id: 9007199254740991,
      rate: 1e-130,
    });
    expect(parseStructuredOutput('{"a": 1}', { type: 'object' })).toEqual({ ok: true, output: { a: 1 } });
  });

  it.each(unstorable)('with %s: a structured output fails the step naming the field', (_, body, why) => {
    expect(parseStructuredOutput(body, { type: 'object' })).toEqual({
      ok: false,
      reason: expect.stringContaining(`the output cannot be stored: ${why}`),
    });
  });

  it('was refused by the write that ends the step (DynamoDB Local); as text it is stored', async () => {
    const store = testStore();
    const clock = new FixedClock();
    const { version } = await seedWorkflow(store, reviewGraph('unstorable-output', 'm@example.com'), {
      clock,
    });
    const run = await seedRun(store, version, { clock });
    const at = new Date(clock.nowMs()).toISOString();
    const step = (output: unknown): GraphStep => ({
      schemaVersion: 1,
      runId: run.runId,
      stepId: 'review',
      type: 'service_task',
      status: 'succeeded',
      attempt: 1,
      output,
      updatedAt: at,
    });
    for (const [, body] of unstorable) {
      const parsed: unknown = JSON.parse(body);
      await expect(
        store.commit({ run, next: run, steps: [{ step: step(parsed), expect: 'absent' }] }),
      ).rejects.toThrow(/Empty attribute name|Number underflow|MAX_SAFE_INTEGER/);
    }
    const [, body] = unstorable[0];
    await store.commit({ run, next: run, steps: [{ step: step(outputOf(body)), expect: 'absent' }] });
    const stored = (await store.loadGraphRun(run.runId))?.steps.find((each) => each.stepId === 'review');
    expect(stored?.output).toEqual({ text: body });
  });
});
