import type { PutEventsRequestEntry } from '@aws-sdk/client-eventbridge';
import { describe, expect, it } from 'vitest';
import {
  EventEnvelopeSchema,
  MAX_ENTRY_BYTES,
  matchesEventPattern,
  normalizePutEventsEntry,
  type PutEventsEntry,
  putEventsEntrySize,
} from '../../shared/triggers/index.ts';

const now = new Date('2024-05-01T12:00:00.250Z');
const entry: PutEventsEntry = {
  Source: 'com.example.orders',
  DetailType: 'Order Placed',
  Detail: JSON.stringify({ orderId: 42, items: [{ sku: 'a', qty: 2 }] }),
  Resources: ['arn:aws:dynamodb:eu-west-1:123456789012:table/orders'],
};

describe('normalizePutEventsEntry', () => {
  it('builds the EventBridge envelope from a PutEvents entry', () => {
    const result = normalizePutEventsEntry(entry, {
      now,
      id: 'evt-1',
      account: '123456789012',
      region: 'eu-west-1',
    });
    expect(result).toEqual({
      ok: true,
      event: {
        version: '0',
        id: 'evt-1',
        'detail-type': 'Order Placed',
        source: 'com.example.orders',
        account: '123456789012',
        time: '2024-05-01T12:00:00Z',
        region: 'eu-west-1',
        resources: ['arn:aws:dynamodb:eu-west-1:123456789012:table/orders'],
        detail: { orderId: 42, items: [{ sku: 'a', qty: 2 }] },
      },
    });
    expect(result.ok && EventEnvelopeSchema.parse(result.event)).toEqual(result.ok && result.event);
  });

  it('takes the id from a generator, called once per entry', () => {
    let calls = 0;
    const ids = () => `id-${++calls}`;
    const first = normalizePutEventsEntry(entry, { now, id: ids });
    const second = normalizePutEventsEntry(entry, { now, id: ids });
    expect([first.ok && first.event.id, second.ok && second.event.id]).toEqual(['id-1', 'id-2']);
  });

  it('derives a stable id from the entry and time when none is given', () => {
    const first = normalizePutEventsEntry(entry, { now });
    const again = normalizePutEventsEntry(entry, { now });
    const later = normalizePutEventsEntry(entry, { now: new Date('2024-05-01T12:00:01Z') });
    expect(first.ok && first.event.id).toMatch(
      /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/,
    );
    expect(again.ok && again.event.id).toBe(first.ok && first.event.id);
    expect(later.ok && later.event.id).not.toBe(first.ok && first.event.id);
  });

  it('uses the entry Time over now, and defaults account, region and resources', () => {
    const result = normalizePutEventsEntry(
      { Source: 'a.b', DetailType: 't', Detail: '{}', Time: new Date('2023-01-02T03:04:05.678Z') },
      { now, id: 'x' },
    );
    expect(result.ok && result.event).toMatchObject({
      time: '2023-01-02T03:04:05Z',
      account: '000000000000',
      region: 'local',
      resources: [],
    });
  });

  it('accepts the AWS SDK request entry type', () => {
    const sdkEntry: PutEventsRequestEntry = {
      Source: 'a.b',
      DetailType: 't',
      Detail: '{"k":1}',
      EventBusName: undefined,
    };
    const result = normalizePutEventsEntry(sdkEntry, { now, id: 'x' });
    expect(result.ok && result.event.detail).toEqual({ k: 1 });
  });

  it('produces events that event patterns match', () => {
    const result = normalizePutEventsEntry(entry, { now, id: 'x' });
    const pattern = { source: ['com.example.orders'], detail: { items: { qty: [{ numeric: ['>=', 2] }] } } };
    expect(result.ok && matchesEventPattern(pattern, result.event)).toBe(true);
  });

  it.each<[string, PutEventsEntry, string, string]>([
    ['a missing Source', { DetailType: 't', Detail: '{}' }, 'Source', 'Source is required'],
    [
      'a reserved aws. Source',
      { Source: 'aws.ec2', DetailType: 't', Detail: '{}' },
      'Source',
      'reserved for AWS services',
    ],
    ['a missing DetailType', { Source: 'a.b', Detail: '{}' }, 'DetailType', 'DetailType is required'],
    ['a missing Detail', { Source: 'a.b', DetailType: 't' }, 'Detail', 'Detail is required'],
    [
      'a Detail that is not JSON',
      { Source: 'a.b', DetailType: 't', Detail: '{oops' },
      'Detail',
      'must be a JSON object',
    ],
    [
      'a Detail that is a JSON array',
      { Source: 'a.b', DetailType: 't', Detail: '[1]' },
      'Detail',
      'must be a JSON object',
    ],
    [
      'an invalid Time',
      { Source: 'a.b', DetailType: 't', Detail: '{}', Time: 'yesterday' },
      'Time',
      'not a valid date',
    ],
    [
      'an entry over 256 KiB',
      { Source: 'a.b', DetailType: 't', Detail: JSON.stringify({ blob: 'x'.repeat(MAX_ENTRY_BYTES) }) },
      '',
      'EventBridge accepts at most 262144',
    ],
  ])('refuses %s', (_what, bad, path, message) => {
    const result = normalizePutEventsEntry(bad, { now, id: 'x' });
    expect(result.ok).toBe(false);
    expect(result.ok ? [] : result.errors).toContainEqual({
      path,
      message: expect.stringContaining(message),
    });
  });
});

describe('putEventsEntrySize', () => {
  it('counts as AWS documents: 14 bytes for Time plus UTF-8 bytes of the strings', () => {
    const size = putEventsEntrySize({
      Source: 'ab',
      DetailType: 'é',
      Detail: '{}',
      Resources: ['r1', 'r2'],
      Time: now,
    });
    expect(size).toBe(14 + 2 + 2 + 2 + 4);
  });
});

describe('EventEnvelopeSchema', () => {
  it('refuses an envelope whose detail is not an object', () => {
    const result = EventEnvelopeSchema.safeParse({
      version: '0',
      id: 'x',
      'detail-type': 't',
      source: 's',
      account: '1',
      time: '2024-01-01T00:00:00Z',
      region: 'r',
      resources: [],
      detail: 'text',
    });
    expect(result.success).toBe(false);
    expect(result.error?.issues[0]?.path).toEqual(['detail']);
  });
});
