/** Item codec: strips key attributes and zod-parses on read, naming the key of an unreadable item. */
import type * as z from '../zod.ts';
import { ItemCorruptError } from './errors.ts';

/** Key attributes, stripped before an item's body is parsed. */
export const KEY_ATTRIBUTES = ['pk', 'sk', 'gsi1pk', 'gsi1sk', 'gsi2pk', 'gsi2sk', 'expiresAtEpoch'];

export function decodeItem<S extends z.ZodMiniType>(schema: S, item: Record<string, unknown>): z.output<S> {
  const body: Record<string, unknown> = {};
  for (const [name, value] of Object.entries(item)) if (!KEY_ATTRIBUTES.includes(name)) body[name] = value;
  const parsed = schema.safeParse(body);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    const where = issue?.path.length ? issue.path.join('.') : '(item)';
    throw new ItemCorruptError(
      `${String(item.pk)}/${String(item.sk)}`,
      `${where}: ${issue?.message ?? 'invalid'}`,
      {
        cause: parsed.error,
      },
    );
  }
  return parsed.data;
}
