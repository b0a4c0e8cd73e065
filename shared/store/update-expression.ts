/**
 * The expression half of a DynamoDB Update that sets and removes top-level attributes: one `SET` clause, then
 * one `REMOVE` clause, each attribute behind a name placeholder and each value behind a value placeholder, so
 * a reserved word (`status`, `name`) or any other attribute name needs no care
 * (https://docs.aws.amazon.com/amazondynamodb/latest/developerguide/Expressions.UpdateExpressions.html,
 * https://docs.aws.amazon.com/amazondynamodb/latest/developerguide/Expressions.ExpressionAttributeNames.html).
 * The placeholders are numbered in the order the changes come, so the same changes always make the same
 * request. DynamoDB refuses an empty expression, a placeholder the request does not use and two actions on one
 * attribute; this refuses them before anything is sent.
 */

/** An Update's expression, names and values: spread into the request beside its table, key and condition. */
export interface UpdateExpressionParts {
  UpdateExpression: string;
  ExpressionAttributeNames: Record<string, string>;
  ExpressionAttributeValues: Record<string, unknown>;
}

export interface UpdateExpressionOptions {
  /** The letters of the numbered placeholders, `#<prefix>N` and `:<prefix>N`, N counting changes from 0. */
  readonly prefix: string;
  /**
   * The condition's placeholders, first in the request's maps. An attribute the condition names can share its
   * name placeholder (given in `placeholders`); a value placeholder is never shared.
   * @default no condition
   */
  readonly condition?: {
    readonly names: Readonly<Record<string, string>>;
    readonly values: Readonly<Record<string, unknown>>;
  };
  /**
   * Attributes written with these placeholders instead of the next numbered pair (which they do not use up).
   * @default none
   */
  readonly placeholders?: Readonly<Record<string, readonly [name: `#${string}`, value: `:${string}`]>>;
}

/**
 * The `SET`/`REMOVE` expression making `changes`, in order: a value sets its attribute, `undefined` removes it
 * (as the document client stores no undefined value, an attribute set to undefined is an absent one).
 *
 * @example
 * updateExpression([['status', 'done'], ['lease', undefined]], { prefix: 'a' })
 * // { UpdateExpression: 'SET #a0 = :a0 REMOVE #a1',
 * //   ExpressionAttributeNames: { '#a0': 'status', '#a1': 'lease' }, ExpressionAttributeValues: { ':a0': 'done' } }
 */
export function updateExpression(
  changes: Iterable<readonly [attribute: string, value: unknown]>,
  options: UpdateExpressionOptions,
): UpdateExpressionParts {
  const names: Record<string, string> = { ...options.condition?.names };
  const values: Record<string, unknown> = { ...options.condition?.values };
  const set: string[] = [];
  const remove: string[] = [];
  const seen = new Set<string>();
  let index = 0;
  for (const [attribute, value] of changes) {
    if (seen.has(attribute)) throw new Error(`update expression: attribute '${attribute}' is changed twice`);
    seen.add(attribute);
    const [nameRef, valueRef] = Object.hasOwn(options.placeholders ?? {}, attribute)
      ? options.placeholders![attribute]!
      : [`#${options.prefix}${index}`, `:${options.prefix}${index++}`];
    if (Object.hasOwn(names, nameRef) && names[nameRef] !== attribute)
      throw new Error(
        `update expression: placeholder '${nameRef}' names both '${names[nameRef]}' and '${attribute}'`,
      );
    names[nameRef] = attribute;
    if (value === undefined) {
      remove.push(nameRef);
      continue;
    }
    if (Object.hasOwn(values, valueRef))
      throw new Error(
        `update expression: value placeholder '${valueRef}' (for '${attribute}') is already in use`,
      );
    values[valueRef] = value;
    set.push(`${nameRef} = ${valueRef}`);
  }
  if (set.length === 0 && remove.length === 0)
    throw new Error('update expression: no attribute to set or remove');
  const clauses = [
    set.length > 0 ? `SET ${set.join(', ')}` : '',
    remove.length > 0 ? `REMOVE ${remove.join(', ')}` : '',
  ];
  return {
    UpdateExpression: clauses.filter((clause) => clause !== '').join(' '),
    ExpressionAttributeNames: names,
    ExpressionAttributeValues: values,
  };
}
