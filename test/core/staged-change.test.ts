/** Merging staged writes into one transaction (shared/core/staged-change.ts). */
import { describe, expect, it } from 'vitest';
import { canMerge, isEmptyPart, mergeParts } from '../../shared/core/staged-change.ts';
import type { Run } from '../../shared/schemas/run.ts';

const day = { owner: 'o', workflowId: 'w', day: '2026-11-30' };

describe('mergeParts', () => {
  it('keeps lists in order and applies the first next before the second', () => {
    // Prepare
    const first = {
      audit: [{ type: 'model_call' as const, actor: 'model', data: {} }],
      next: (run: Run) => ({ ...run, messageCount: run.messageCount + 1 }),
    };
    const second = {
      audit: [{ type: 'turn_committed' as const, actor: 'system', data: {} }],
      next: (run: Run) => ({ ...run, messageCount: run.messageCount * 10 }),
    };

    // Act
    const merged = mergeParts(first, second);

    // Assess
    expect(merged.audit?.map((entry) => entry.type)).toEqual(['model_call', 'turn_committed']);
    expect(merged.next?.({ messageCount: 1 } as Run).messageCount).toBe(20);
  });

  it('sums two changes of the same day into one guarded update (a transaction touches an item once)', () => {
    // Act
    const merged = mergeParts(
      { daySpend: { ...day, deltaUsd: -0.3, reservedDeltaUsd: -0.5 } },
      { daySpend: { ...day, deltaUsd: 0.5, reservedDeltaUsd: 0.5, limitUsd: 2 } },
    );

    // Assess: the day after both must stay under the limit, as the two updates in sequence required.
    expect(merged.daySpend).toEqual({ ...day, deltaUsd: 0.2, reservedDeltaUsd: 0, limitUsd: 2 });
  });

  it('refuses to merge changes of different days', () => {
    const first = { daySpend: { ...day, deltaUsd: 0.1 } };
    const second = { daySpend: { ...day, day: '2026-12-01', deltaUsd: 0.1 } };
    expect(canMerge(first, second)).toBe(false);
    expect(() => mergeParts(first, second)).toThrow(/different days/);
  });

  it('tells an empty part from one that writes or moves something', () => {
    expect(isEmptyPart({})).toBe(true);
    expect(isEmptyPart({ audit: [] })).toBe(true);
    expect(isEmptyPart({ next: (run: Run) => run })).toBe(false);
    expect(isEmptyPart({ ledgerSettle: [{} as never] })).toBe(false);
  });
});
