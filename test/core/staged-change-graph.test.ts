/**
 * Merged changes keep every kind of write: a graph step write, a human-task record and the reopen flag
 * (a merge that dropped them silently lost the step writes of graph runs).
 */
import { describe, expect, it } from 'vitest';
import { mergeParts, partSize } from '../../shared/core/staged-change.ts';
import type { StepWrite } from '../../shared/schemas/graph-step.ts';

const step = (stepId: string): StepWrite => ({
  step: {
    schemaVersion: 1,
    runId: 'run_abcdef12',
    stepId,
    type: 'service_task',
    status: 'running',
    attempt: 1,
    updatedAt: '2026-12-01T00:00:00.000Z',
  },
  expect: 'absent',
});

describe('mergeParts with graph writes', () => {
  it('keeps the step writes of both parts, in order, and the reopen flag', () => {
    const merged = mergeParts({ steps: [step('a')] }, { steps: [step('b')], reopen: true });
    expect(merged.steps?.map((write) => write.step.stepId)).toEqual(['a', 'b']);
    expect(merged.reopen).toBe(true);
  });

  it('counts step writes in the transaction size', () => {
    expect(partSize({ steps: [step('a'), step('b')] }).items).toBe(2);
  });
});
