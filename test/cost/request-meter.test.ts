/**
 * The cost-profile meter counts requests that fail as AWS bills them: a single-item write whose condition was
 * false costs write units (read-write-operations.html); a canceled transaction is a request, its units apart.
 * The meter's I/O is injected: `peek` reads a map, `send` is the request (here: what DynamoDB answered).
 */
import { describe, expect, it } from 'vitest';
import { billedItemBytes } from '../../shared/cost/item-bytes.ts';
import { createRequestMeter, type MeterTrace } from '../../shared/cost/request-meter.ts';
import type { IndexShape, Item } from '../../shared/cost/request-units.ts';

const KB = 1024;
const GSI1: IndexShape = { name: 'gsi1', partitionKey: 'gsi1pk', sortKey: 'gsi1sk', projection: 'ALL' };
const sized = (bytes: number, base: Record<string, unknown>) => ({
  ...base,
  d: 'a'.repeat(bytes - billedItemBytes(base) - 1),
});
const named = (name: string) => Object.assign(new Error(name), { name });

function meterOver(stored: Record<string, Item>) {
  const traces: MeterTrace[] = [];
  const meter = createRequestMeter({
    keyNames: ['pk', 'sk'],
    indexes: [GSI1],
    peek: async (key) => stored[`${key.pk}/${key.sk}`],
    trace: (entry) => traces.push(entry),
  });
  return { meter, traces };
}

describe('Function: createRequestMeter', () => {
  it('bills a Put whose condition failed by the larger item, 1 request, no index units, and rethrows', async () => {
    const existing = sized(1.5 * KB, { pk: 'R#1', sk: 'RUN', gsi1pk: 'o', gsi1sk: 's' });
    const attempted = sized(2.5 * KB, { pk: 'R#1', sk: 'RUN', gsi1pk: 'o', gsi1sk: 's' });
    const { meter } = meterOver({ 'R#1/RUN': existing });

    const sending = meter.measure('PutCommand', { Item: attempted }, () =>
      Promise.reject(named('ConditionalCheckFailedException')),
    );

    await expect(sending).rejects.toThrow('ConditionalCheckFailedException');
    expect(meter.counts()).toMatchObject({
      writes: 1,
      writeUnits: 3,
      failedWrites: 1,
      failedWriteUnits: 3,
      indexWriteUnits: 0,
      canceledTransactions: 0,
    });
  });

  it('bills an Update of a missing item whose condition failed 1 WRU', async () => {
    const { meter } = meterOver({});
    await expect(
      meter.measure('UpdateCommand', { Key: { pk: 'R#9', sk: 'RUN' } }, () =>
        Promise.reject(named('ConditionalCheckFailedException')),
      ),
    ).rejects.toThrow();
    expect(meter.counts()).toMatchObject({ writes: 1, writeUnits: 1, failedWrites: 1 });
  });

  it('counts a canceled transaction as a request with its reasons traced, and no units', async () => {
    const { meter, traces } = meterOver({});
    const canceled = Object.assign(named('TransactionCanceledException'), {
      CancellationReasons: [{ Code: 'ConditionalCheckFailed' }, { Code: 'None' }],
    });
    await expect(
      meter.measure(
        'TransactWriteCommand',
        {
          TransactItems: [
            { Update: { Key: { pk: 'R#1', sk: 'RUN' } } },
            { Put: { Item: { pk: 'R#1', sk: 'AUD#1' } } },
          ],
        },
        () => Promise.reject(canceled),
      ),
    ).rejects.toBe(canceled);
    expect(meter.counts()).toMatchObject({ writes: 1, writeUnits: 0, canceledTransactions: 1 });
    expect(traces).toEqual([
      expect.objectContaining({ outcome: 'canceled', reasons: ['ConditionalCheckFailed', 'None'] }),
    ]);
  });

  it('meters nothing for an error AWS does not bill (validation, throttling) and nothing for reads that fail', async () => {
    const { meter } = meterOver({});
    await expect(
      meter.measure('PutCommand', { Item: { pk: 'a', sk: 'b' } }, () =>
        Promise.reject(named('ValidationException')),
      ),
    ).rejects.toThrow();
    await expect(
      meter.measure('GetCommand', { Key: { pk: 'a', sk: 'b' } }, () =>
        Promise.reject(named('ProvisionedThroughputExceededException')),
      ),
    ).rejects.toThrow();
    expect(meter.counts()).toMatchObject({ reads: 0, writes: 0, writeUnits: 0 });
  });

  it('prices a successful write from the items before and after, and Local units beside it', async () => {
    const stored: Record<string, Item> = {};
    const { meter } = meterOver(stored);
    const item = sized(900, { pk: 'R#1', sk: 'AUD#1' });
    await meter.measure('TransactWriteCommand', { TransactItems: [{ Put: { Item: item } }] }, async () => {
      stored['R#1/AUD#1'] = item;
      return { output: { ConsumedCapacity: [{ CapacityUnits: 2 }] } };
    });
    expect(meter.counts()).toMatchObject({ writes: 1, writeUnits: 2, localWriteUnits: 2, failedWrites: 0 });
    meter.reset();
    expect(meter.counts().writes).toBe(0);
  });
});
