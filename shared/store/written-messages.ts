/**
 * The messages a commit of this container wrote, in the form a read of them returns: the items they were
 * stored as (message-items.ts), each as the document client gives it back, reassembled and validated like a
 * read (message-assembly.ts). The transcript cache (transcript-cache.ts) keeps them, so the turn after a
 * commit of this container reads its run by key alone (run-with-messages.ts) and not its own messages again.
 *
 * What the document client gives back of what it stored (client.ts marshall options; @aws-sdk/util-dynamodb
 * `convertToAttr`, and the escaped names of own-constructor-keys.ts turned back on reading):
 * - a field or list element that is `undefined` is not stored (`removeUndefinedValues`);
 * - a number is stored as its decimal string (DynamoDB's `N`), read back with `Number`: the same number, except
 *   that `-0` is stored as `0` (a number the marshaller refuses — NaN, Infinity, an unsafe integer — fails the
 *   commit, which then caches nothing);
 * - a map (a plain object, or a `Map` for an object with an own `constructor` field) is read back as a plain
 *   object with the same own fields; a binary as a new `Uint8Array` of the same bytes.
 * Strings, booleans and null come back as they are.
 */
import type { TranscriptMessage } from '../schemas/message.ts';
import { assembleMessages } from './message-assembly.ts';

/** `value` as the document client reads back what it stored of it (see above). */
export function readBack(value: unknown): unknown {
  if (typeof value === 'number') return Object.is(value, -0) ? 0 : value;
  if (typeof value !== 'object' || value === null) return value;
  if (value instanceof Uint8Array) return new Uint8Array(value);
  if (Array.isArray(value))
    return value.filter((element) => element !== undefined && typeof element !== 'function').map(readBack);
  const entries = value instanceof Map ? [...value.entries()] : Object.entries(value);
  // Object.fromEntries defines each field as an own data property (a `__proto__` field too).
  return Object.fromEntries(
    entries
      .filter(([, element]) => element !== undefined && typeof element !== 'function')
      .map(([name, element]) => [String(name), readBack(element)]),
  );
}

/**
 * The messages stored in `items` (the message items a commit that succeeded wrote, message-items.ts, in order) as
 * a read of those items returns them. The items themselves, not the messages sized and cut again: the commit
 * built them, sent them (the document client does not change what it is given) and keeps nothing else of them.
 */
export function writtenMessages(items: readonly Record<string, unknown>[]): TranscriptMessage[] {
  return assembleMessages(items.map((item) => readBack(item) as Record<string, unknown>));
}
