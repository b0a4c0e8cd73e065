/**
 * An item's size as DynamoDB bills it
 * (https://docs.aws.amazon.com/amazondynamodb/latest/developerguide/CapacityUnitCalculations.html):
 * attribute names and strings count their UTF-8 bytes, binary its bytes, a number 1 byte per two significant
 * digits + 1 (leading and trailing zeroes trimmed), null and booleans 1 byte, a List or Map 3 bytes + 1 byte
 * per element + the elements, a set the sum of its elements. Unlike shared/core/item-size.ts (a safe upper
 * bound for the 400 KB limit: every number 21 bytes), numbers are sized exactly here, so a billed unit is not
 * overcounted at a 1 KB or 4 KB boundary. Items are in the document client's native form.
 */
import { utf8Length } from '../core/byte-caps.ts';

/** Significant decimal digits of a number: sign, point, exponent and leading/trailing zeroes dropped. */
function significantDigits(value: number | bigint): number {
  // The shortest round-trip form (String), not toPrecision: no binary-float noise digits.
  const text = typeof value === 'bigint' ? value.toString() : String(Math.abs(value));
  const digits = text.replace(/e.*$/i, '').replace(/[-.]/g, '').replace(/^0+/, '').replace(/0+$/, '');
  return Math.max(digits.length, 1);
}

export function numberBytes(value: number | bigint): number {
  return Math.ceil(significantDigits(value) / 2) + 1;
}

/** The billed size of one attribute value (without its name). */
export function billedValueBytes(value: unknown): number {
  if (value === undefined) return 0;
  if (value === null || typeof value === 'boolean') return 1;
  if (typeof value === 'string') return utf8Length(value);
  if (typeof value === 'number' || typeof value === 'bigint') return numberBytes(value);
  if (value instanceof Uint8Array) return value.byteLength;
  if (value instanceof Set) {
    let bytes = 0;
    for (const element of value) bytes += billedValueBytes(element);
    return bytes;
  }
  if (Array.isArray(value)) {
    let bytes = 3;
    for (const element of value) bytes += 1 + billedValueBytes(element);
    return bytes;
  }
  if (typeof value === 'object') {
    let bytes = 3;
    for (const [name, element] of Object.entries(value)) {
      if (element === undefined) continue;
      bytes += 1 + utf8Length(name) + billedValueBytes(element);
    }
    return bytes;
  }
  throw new Error(`item size: a ${typeof value} is not a DynamoDB value`);
}

/** The billed size of a whole item: its top-level attribute names and values. */
export function billedItemBytes(item: Record<string, unknown>): number {
  let bytes = 0;
  for (const [name, value] of Object.entries(item)) {
    if (value === undefined) continue;
    bytes += utf8Length(name) + billedValueBytes(value);
  }
  return bytes;
}
