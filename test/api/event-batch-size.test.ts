/**
 * PutEvents' size limit is the request's, not only each entry's: EventBridge refuses the whole request
 * (ValidationException, "Total size of the entries in the request is over the limit") when its entries together
 * pass 256 KiB, counted as "Calculating PutEvents event entry size" says
 * (https://docs.aws.amazon.com/eventbridge/latest/userguide/eb-putevent-size.html: "The total entry size must be
 * less than 256KB"). The local bus delivered such a batch. Before the fix both intakes took two entries of
 * 150 KB each, the local one starting runs for them; now both answer 400 naming `Entries`, and start nothing.
 */
import { randomUUID } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { MAX_ENTRY_BYTES, putEventsEntrySize } from '../../shared/triggers/index.ts';
import { apiHarness, definition } from './helpers.ts';

const h = apiHarness();

const entry = (source: string, bytes: number) => ({
  Source: source,
  DetailType: 'Report Ready',
  Detail: JSON.stringify({ total: 1, blob: 'x'.repeat(bytes) }),
});

async function workflowOn(source: string) {
  const created = await h.alice.post(
    '/v1/workflows',
    definition({
      trigger: { type: 'event', pattern: { source: [source], detail: { total: [{ exists: true }] } } },
    }),
  );
  expect(created.status).toBe(201);
}

describe('Event intake: the request size', () => {
  it.each(['/v1/events', '/local/events'])(
    'refuses entries that fit one by one but not together, naming Entries, starting nothing (%s)',
    async (path) => {
      const source = `com.test.${randomUUID()}`;
      await workflowOn(source);
      const entries = [entry(source, 150_000), entry(source, 150_000)];
      expect(entries.every((each) => putEventsEntrySize(each) < MAX_ENTRY_BYTES)).toBe(true);
      const starts = h.executions.starts.length;
      const reply = await h.alice.post(path, { Entries: entries });
      expect(reply.status).toBe(400);
      expect(reply.body.error.fields).toEqual([
        {
          path: 'Entries',
          message: expect.stringMatching(/together are \d+ bytes; .* at most 262144 \(256 KiB\)/),
        },
      ]);
      expect(h.executions.starts.length).toBe(starts);
    },
  );

  it('takes a batch whose entries together fit, the owner stamp counted', async () => {
    const source = `com.test.${randomUUID()}`;
    await workflowOn(source);
    const reply = await h.alice.post('/v1/events', {
      Entries: [entry(source, 120_000), entry(source, 120_000)],
    });
    expect(reply.status).toBe(200);
    expect(reply.body.runs).toHaveLength(2);
  });
});
