/**
 * Values with a field named `constructor`, stored as they are. The document client's marshaller picks a value's
 * DynamoDB type by `value.constructor.name` (@aws-sdk/util-dynamodb `convertToAttr`): an own `constructor` field
 * makes it refuse the item (`{"constructor": "x"}`), or misread it (`{"constructor": {"name": "String"}}` is stored
 * as the string "[object Object]"). Such fields come from outside: a model's tool call, an engine's answer, a
 * form. Before marshalling, every object holding one is handed over as a `Map` of its entries, which the marshaller
 * stores as the same DynamoDB map; reading gives back a plain object with the field. Values without one are passed
 * through untouched (the same references: nothing is copied).
 */
import type { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';

const hasOwnConstructor = (value: object) => Object.hasOwn(value, 'constructor');

function isPlainObject(value: unknown): value is Record<string, unknown> {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return false;
  const proto = Object.getPrototypeOf(value);
  return proto === Object.prototype || proto === null;
}

/** `value` with every object that has an own `constructor` field replaced by a `Map` (copies only on that path). */
export function withConstructorFieldsAsMaps(value: unknown): unknown {
  if (Array.isArray(value)) {
    let copy: unknown[] | undefined;
    value.forEach((element, index) => {
      const next = withConstructorFieldsAsMaps(element);
      if (next !== element) {
        copy ??= [...value];
        copy[index] = next;
      }
    });
    return copy ?? value;
  }
  if (!isPlainObject(value)) return value;
  // Every write passes here: nothing is allocated unless a field below changed.
  let changes: Map<string, unknown> | undefined;
  for (const key of Object.keys(value)) {
    const child = value[key];
    const next = withConstructorFieldsAsMaps(child);
    if (next !== child) {
      changes ??= new Map();
      changes.set(key, next);
    }
  }
  if (changes === undefined && !hasOwnConstructor(value)) return value;
  // Rebuilt from entries (data properties), never by assignment, so no field can set a prototype here. A
  // `__proto__` field does not survive the document client either way (its marshaller and unmarshaller both drop
  // it), which is why the API refuses that name (api/storable.ts).
  const entries = Object.entries(value).map(
    ([key, child]) => [key, changes?.has(key) ? changes.get(key) : child] as const,
  );
  return hasOwnConstructor(value) ? new Map(entries) : Object.fromEntries(entries);
}

/**
 * Rewrites each command's input before the document client marshals it (the `initialize` step runs before
 * lib-dynamodb's `DocumentMarshall`, which sits before the serializer).
 */
export function storeOwnConstructorFields(doc: DynamoDBDocumentClient): void {
  doc.middlewareStack.add(
    (next) => async (args) =>
      next({ ...args, input: withConstructorFieldsAsMaps(args.input) as typeof args.input }),
    { step: 'initialize', name: 'wfOwnConstructorFields' },
  );
}
