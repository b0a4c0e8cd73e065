/**
 * `storedError`: the one shape of an error a run, a graph step or an audit entry keeps (shared/core/stored-error.ts).
 */
import { describe, expect, it } from 'vitest';
import { canonicalJson } from '../../shared/audit/index.ts';
import {
  STORED_ERROR_MESSAGE_UNITS,
  STORED_ERROR_NAME_UNITS,
  storedError,
} from '../../shared/core/stored-error.ts';
import { GraphStepSchema } from '../../shared/schemas/graph-step.ts';

const EMOJI = '\u{1F600}';

describe('Function: storedError', () => {
  it('keeps a short error as it is', () => {
    expect(storedError({ name: 'ModelServerError', message: 'model API error: 500' })).toEqual({
      name: 'ModelServerError',
      message: 'model API error: 500',
    });
  });

  it.each([
    ['an ASCII message', 'x'.repeat(5_000), 'x'.repeat(STORED_ERROR_MESSAGE_UNITS)],
    // 1 + 2 × 999 = 1,999 units: the cap falls between the halves of the 1,000th emoji, which is left out.
    ['a message cut inside an emoji', `x${EMOJI.repeat(3_000)}`, `x${EMOJI.repeat(999)}`],
    ['a lone surrogate', `a\ud83db${'c'.repeat(3_000)}`, `a\ufffdb${'c'.repeat(1_997)}`],
  ])('cuts %s to the cap and makes it well-formed', (_case, message, expected) => {
    // Act
    const stored = storedError({ name: 'Error', message });

    // Assess
    expect(stored.message).toBe(expected);
    expect(stored.message.isWellFormed()).toBe(true);
    expect(() => canonicalJson(stored)).not.toThrow();
  });

  it('cuts the name to its cap and makes it well-formed', () => {
    const stored = storedError({ name: `\udc00${'N'.repeat(500)}`, message: 'm' });
    expect(stored.name).toBe(`\ufffd${'N'.repeat(STORED_ERROR_NAME_UNITS - 1)}`);
  });

  it('keeps only the name and the message', () => {
    const error = Object.assign(new Error('boom'), { stack: 'at x', extra: 1 });
    expect(storedError(error)).toEqual({ name: 'Error', message: 'boom' });
  });

  it('stores no step error that a step item could not be read back with', () => {
    // The step schema reads a message of at most the cap; one past it made the whole graph run unreadable.
    const step = {
      schemaVersion: 1,
      runId: 'run_1',
      stepId: 'triage',
      type: 'agent_task',
      status: 'failed',
      attempt: 1,
      updatedAt: '2026-12-04T10:00:00.000Z',
    };
    const error = storedError({ name: 'Error', message: 'y'.repeat(10_000) });
    expect(GraphStepSchema.safeParse({ ...step, error }).success).toBe(true);
    expect(
      GraphStepSchema.safeParse({ ...step, error: { ...error, message: `${error.message}y` } }).success,
    ).toBe(false);
  });
});
