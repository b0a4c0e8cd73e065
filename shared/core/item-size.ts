/**
 * DynamoDB item size, as AWS documents it
 * (https://docs.aws.amazon.com/amazondynamodb/latest/developerguide/CapacityUnitCalculations.html):
 * strings and attribute names count their UTF-8 bytes; a number at most 1 byte per two significant
 * digits + 1 (38 digits at most, so ≤ 20: 21 is used as a safe bound); null and booleans 1 byte; a List or
 * Map 3 bytes plus 1 byte per element. The item limit is 400 KB including names and values
 * (https://docs.aws.amazon.com/amazondynamodb/latest/developerguide/ServiceQuotas.html).
 * Pure, so the core can size what it is about to store and a unit check can size the worst case.
 */
import { utf8Length } from './byte-caps.ts';

/** DynamoDB's maximum item size: 400 KB. */
export const DYNAMO_ITEM_LIMIT_BYTES = 400 * 1024;

const NUMBER_BOUND_BYTES = 21;

/** The stored size of one attribute value (without its name). */
export function valueBytes(value: unknown): number {
  if (value === undefined) return 0; // removed before marshalling (removeUndefinedValues)
  if (value === null || typeof value === 'boolean') return 1;
  if (typeof value === 'string') return utf8Length(value);
  if (typeof value === 'number' || typeof value === 'bigint') return NUMBER_BOUND_BYTES;
  if (value instanceof Uint8Array) return value.byteLength;
  if (Array.isArray(value)) {
    let bytes = 3;
    for (const element of value) bytes += 1 + valueBytes(element);
    return bytes;
  }
  if (typeof value === 'object') {
    let bytes = 3;
    for (const [name, element] of Object.entries(value)) {
      if (element === undefined) continue;
      bytes += 1 + utf8Length(name) + valueBytes(element);
    }
    return bytes;
  }
  return NUMBER_BOUND_BYTES;
}

/** The stored size of a whole item: its top-level attribute names and values. */
export function itemBytes(item: Record<string, unknown>): number {
  let bytes = 0;
  for (const [name, value] of Object.entries(item)) {
    if (value === undefined) continue;
    bytes += utf8Length(name) + valueBytes(value);
  }
  return bytes;
}
