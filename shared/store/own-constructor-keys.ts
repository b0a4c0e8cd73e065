/**
 * Values with a field named `constructor` or `__proto__`, stored as they are. Such fields come from outside: a
 * model's tool call, an engine's answer, a job's input, a form, a fetched JSON (JSON.parse makes `__proto__` an
 * own field like any other).
 *
 * `constructor`: the document client's marshaller picks a value's DynamoDB type by `value.constructor.name`
 * (@aws-sdk/util-dynamodb `convertToAttr`): an own `constructor` field makes it refuse the item
 * (`{"constructor": "x"}`), or misread it (`{"constructor": {"name": "String"}}` is stored as the string
 * "[object Object]"). Before marshalling, every object holding one is handed over as a `Map` of its entries,
 * which the marshaller stores as the same DynamoDB map; reading gives back a plain object with the field.
 *
 * `__proto__`: the marshaller and the unmarshaller both drop a field of that name, silently, so a stored tool
 * call differed from the one its audit entry hashed. It is stored under an escaped name: `__proto__` followed
 * by one more `~` than it had (`__proto__` ↔ `__proto__~`, `__proto__~` ↔ `__proto__~~`, …, so no name is
 * taken from another), and every read turns the escaped names back into own data properties.
 *
 * Values without such fields are passed through untouched (the same references: nothing is copied).
 */
import type { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';

const hasOwnConstructor = (value: object) => Object.hasOwn(value, 'constructor');

/** `__proto__` and its escaped forms (`__proto__~`, `__proto__~~`, …): each is stored with one `~` more. */
const PROTO_NAME = /^__proto__~*$/;
/** A stored name that was escaped: read back with one `~` fewer. */
const ESCAPED_PROTO_NAME = /^__proto__~+$/;
const PROTO_PREFIX = '__proto__';

/** The name a field is stored under. */
export const storedFieldName = (key: string): string =>
  key.startsWith(PROTO_PREFIX) && PROTO_NAME.test(key) ? `${key}~` : key;

/** The name a stored field is read back as. */
export const readFieldName = (key: string): string =>
  key.startsWith(PROTO_PREFIX) && ESCAPED_PROTO_NAME.test(key) ? key.slice(0, -1) : key;

function isPlainObject(value: unknown): value is Record<string, unknown> {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return false;
  const proto = Object.getPrototypeOf(value);
  return proto === Object.prototype || proto === null;
}

type Rewrite = {
  /** The name the field has on the other side. */
  rename: (key: string) => string;
  /** Whether this object must be rebuilt as a `Map` (writing only: an own `constructor`). */
  asMap: (value: object) => boolean;
};

/** `value` with every plain object rewritten by `rewrite` (copies only on the changed paths). */
function rewriteFields(value: unknown, rewrite: Rewrite): unknown {
  if (Array.isArray(value)) {
    let copy: unknown[] | undefined;
    value.forEach((element, index) => {
      const next = rewriteFields(element, rewrite);
      if (next !== element) {
        copy ??= [...value];
        copy[index] = next;
      }
    });
    return copy ?? value;
  }
  if (!isPlainObject(value)) return value;
  // Every write and read passes here: nothing is allocated unless a field below (or a name) changed.
  let changes: Map<string, unknown> | undefined;
  let renamed = false;
  for (const key of Object.keys(value)) {
    const child = value[key];
    const next = rewriteFields(child, rewrite);
    if (next !== child) {
      changes ??= new Map();
      changes.set(key, next);
    }
    if (!renamed && rewrite.rename(key) !== key) renamed = true;
  }
  const asMap = rewrite.asMap(value);
  if (changes === undefined && !renamed && !asMap) return value;
  // Rebuilt from entries (data properties: Object.fromEntries defines an own `__proto__`, never sets the
  // prototype), never by assignment.
  const entries = Object.entries(value).map(
    ([key, child]) => [rewrite.rename(key), changes?.has(key) ? changes.get(key) : child] as const,
  );
  return asMap ? new Map(entries) : Object.fromEntries(entries);
}

const WRITING: Rewrite = { rename: storedFieldName, asMap: hasOwnConstructor };
const READING: Rewrite = { rename: readFieldName, asMap: () => false };

/**
 * `value` as it is handed to the marshaller: every object with an own `constructor` field as a `Map`, every
 * `__proto__` name escaped (copies only on those paths).
 */
export function withConstructorFieldsAsMaps(value: unknown): unknown {
  return rewriteFields(value, WRITING);
}

/** What the unmarshaller gave back, with the escaped `__proto__` names turned back (copies only on those paths). */
export function withStoredNamesRead(value: unknown): unknown {
  return rewriteFields(value, READING);
}

/**
 * Rewrites each command's input before the document client marshals it, and its output after the document
 * client unmarshalled it (the `initialize` step wraps lib-dynamodb's `DocumentMarshall`, which sits before the
 * serializer, and its `DocumentUnmarshall`, which sits before the deserializer).
 */
export function storeOwnConstructorFields(doc: DynamoDBDocumentClient): void {
  doc.middlewareStack.add(
    (next) => async (args) => {
      const result = await next({
        ...args,
        input: withConstructorFieldsAsMaps(args.input) as typeof args.input,
      });
      const output = withStoredNamesRead(result.output);
      return output === result.output ? result : { ...result, output: output as typeof result.output };
    },
    { step: 'initialize', name: 'wfOwnConstructorFields' },
  );
}
