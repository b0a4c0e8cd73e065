/**
 * Status-filtered listings: DynamoDB applies a Query's `Limit` before its `FilterExpression`
 * (https://docs.aws.amazon.com/amazondynamodb/latest/developerguide/Query.FilterExpression.html), so one Query
 * can match nothing while matches lie further on. A filtered page keeps reading, within a budget, until it
 * holds `limit` matches (shared/store/reads.ts).
 */
import type { QueryCommand } from '@aws-sdk/lib-dynamodb';
import { describe, expect, it } from 'vitest';
import type { StoreContext } from '../../shared/store/client.ts';
import { FILTERED_PAGE_BUDGET, queryIndexPage } from '../../shared/store/reads.ts';
import { TABLE_KEYS } from '../../shared/store/table.ts';
import * as z from '../../shared/zod.ts';
import { FixedClock, minimalWorkflow, seedRun, seedWorkflow, testStore } from '../support/store.ts';

const store = testStore();

async function runs(statuses: ('pending' | 'cancelled')[]) {
  const clock = new FixedClock();
  const { version } = await seedWorkflow(store, minimalWorkflow());
  const made = [];
  // Oldest first: the listing answers newest first.
  for (const status of statuses) {
    clock.advance(1000);
    const run = await seedRun(store, version, { clock });
    made.push(status === 'pending' ? run : await store.commit({ run, next: { ...run, status } }));
  }
  return { owner: version.owner, made };
}

describe('status-filtered listings fill the page', () => {
  it('finds a pending run behind newer cancelled ones on the first page', async () => {
    const { owner, made } = await runs(['pending', 'cancelled', 'cancelled', 'cancelled']);
    const page = await store.listRuns({ owner, status: 'pending', limit: 3 });
    expect(page.items.map((r) => r.runId)).toEqual([made[0]!.runId]);
    expect(page.nextToken).toBeUndefined();
  });

  it('stops at limit and the next page starts after the last run kept', async () => {
    const { owner, made } = await runs(['pending', 'pending', 'pending', 'cancelled']);
    const ids = made.map((r) => r.runId);
    const first = await store.listRuns({ owner, status: 'pending', limit: 2 });
    expect(first.items.map((r) => r.runId)).toEqual([ids[2], ids[1]]);
    expect(first.nextToken).toBeDefined();
    const second = await store.listRuns({ owner, status: 'pending', limit: 2, nextToken: first.nextToken! });
    expect(second.items.map((r) => r.runId)).toEqual([ids[0]]);
    expect(second.nextToken).toBeUndefined();
  });

  it('also fills a filtered listing by workflow', async () => {
    const { owner, made } = await runs(['pending', 'cancelled', 'cancelled']);
    const page = await store.listRuns({
      owner,
      workflowId: made[0]!.workflowId,
      status: 'pending',
      limit: 1,
    });
    expect(page.items.map((r) => r.runId)).toEqual([made[0]!.runId]);
  });

  it('answers an empty page with a nextToken once its read budget is spent', async () => {
    // An index that never matches and never ends: count what the page reads.
    const limits: number[] = [];
    const ctx = {
      table: 't',
      doc: {
        send: async (command: QueryCommand) => {
          const limit = command.input.Limit!;
          limits.push(limit);
          const n = limits.length;
          return { Items: [], ScannedCount: limit, LastEvaluatedKey: { pk: `RUN#${n}`, sk: 'RUN' } };
        },
      },
    } as unknown as StoreContext;
    const page = await queryIndexPage(
      ctx,
      TABLE_KEYS.byOwner,
      { pk: 'OWNER#o', prefix: 'RUN#', status: 'pending', limit: 25 },
      z.unknown(),
    );
    expect(page.items).toEqual([]);
    expect(page.nextToken).toBeDefined();
    expect(limits.reduce((a, b) => a + b, 0)).toBeLessThanOrEqual(FILTERED_PAGE_BUDGET.items);
    expect(limits.length).toBeLessThanOrEqual(FILTERED_PAGE_BUDGET.queries);
    expect(limits.slice(0, 3)).toEqual([25, 50, 100]);
  });
});
