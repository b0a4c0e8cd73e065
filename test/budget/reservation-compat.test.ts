/**
 * Upgrades and rollbacks: a run created with turn 0's reservation must stay readable by the previous release,
 * whose run schema reads `reservation.ahead` as `{ executionId: string }` only (a missing id failed its parse,
 * so its Turn and Api answered ItemCorruptError for every new run). The creation writes `executionId: ''`
 * beside the name; an empty id is never the old Turn's execution, so it counts the reservation as spent and
 * reserves again (over-counted, never free), while this release still spends it on turn 0's first attempt.
 */
import { GetCommand } from '@aws-sdk/lib-dynamodb';
import { describe, expect, it } from 'vitest';
import * as z from 'zod';
import { unusedAheadReservation } from '../../shared/core/attempt.ts';
import { RunSchema } from '../../shared/schemas/run.ts';
import { firstAttempt } from '../support/engine.ts';
import { minimalWorkflow, seedRun, seedWorkflow, testStore } from '../support/store.ts';

const store = testStore();

/** `reservation` as the previous release (fcf8868) read it. */
const PreviousReservation = z
  .object({
    turn: z.number().int(),
    usd: z.number().nonnegative(),
    day: z.string(),
    daily: z.boolean().default(false),
    ahead: z.object({ executionId: z.string() }).optional(),
  })
  .optional();

describe("a run created with turn 0's reservation", () => {
  it('is read by the previous release, which never spends it, and spent on turn 0 by this one', async () => {
    // Prepare
    const { version } = await seedWorkflow(store, minimalWorkflow());
    const run = await seedRun(store, version);
    const { Item } = await store.ctx.doc.send(
      new GetCommand({ TableName: store.ctx.table, Key: { pk: `RUN#${run.runId}`, sk: 'RUN' } }),
    );

    // Act
    const previous = PreviousReservation.safeParse(Item?.reservation);
    const current = RunSchema.parse(Item);

    // Assess: the old shape parses, with an id that is no execution's; this release reads the name
    expect(Item?.reservation?.ahead).toEqual({ executionName: run.runId, executionId: '' });
    expect(previous.success).toBe(true);
    expect(previous.data?.ahead?.executionId).toBe('');
    expect(current.reservation?.ahead).toEqual({ executionName: run.runId, executionId: '' });
    expect(unusedAheadReservation(current, firstAttempt(run.runId))).toBeDefined();
  });
});
