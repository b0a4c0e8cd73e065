/**
 * Numbers a call cannot carry as written. The model's tool input reaches the runtime already parsed (the
 * Anthropic SDK reads it with `JSON.parse`), so a number is an IEEE 754 double: past
 * `Number.MAX_SAFE_INTEGER` (2^53 − 1) in magnitude it has been rounded to the nearest double, and the digits
 * the model wrote are gone (`12345678901234567890` is read as `12345678901234567000`;
 * https://developer.mozilla.org/en-US/docs/Web/JavaScript/Reference/Global_Objects/Number/MAX_SAFE_INTEGER).
 * RFC 7493 (I-JSON) §2.2 says no receiver can be expected to treat such an integer as exact, and advises sending
 * it as a string. Past 2^53 every double is an integer, so the test is magnitude alone: `1e300` is refused too
 * (it may stand for a 301-digit id, and is sent as `1e+300`), and so is a number too large for a double at all
 * (`1e400` is read as `Infinity`, which JSON would send as `null`).
 *
 * Fractions are not refused: a double keeps 15 significant digits of any decimal exactly and sends back the
 * shortest text that reads as the same double, so `0.1` or `19.99` goes out as written; only a decimal written
 * with more than 15 significant digits can change, by less than one part in 2^53, a rounding every JSON
 * receiver that reads numbers as doubles makes anyway. An amount that must keep more digits is a string too.
 */
import { formatPath } from '../workflow-file/errors.ts';

/** A number that cannot be carried as written: where it is, and the value it was read as. */
export type InexactNumber = { path: string; read: number };

/** A value met on the walk; its path is built from its parents only for the one answered (no copies per level). */
type Frame = { value: unknown; key?: PropertyKey; parent?: Frame };

/**
 * The first number in `value` (nested objects and arrays included, in document order) that is past
 * `Number.MAX_SAFE_INTEGER` in magnitude or not finite; undefined when there is none. `at` is the path of
 * `value` itself. The walk is iterative and linear, so no nesting can overflow the stack or take long.
 */
export function inexactNumber(value: unknown, at: PropertyKey[] = ['input']): InexactNumber | undefined {
  const stack: Frame[] = [{ value }];
  while (stack.length > 0) {
    const frame = stack.pop()!;
    const current = frame.value;
    if (typeof current === 'number') {
      // `!(x <= max)` holds for NaN too.
      if (!(Math.abs(current) <= Number.MAX_SAFE_INTEGER))
        return { path: formatPath([...at, ...pathOf(frame)]), read: current };
    } else if (Array.isArray(current)) {
      for (let index = current.length - 1; index >= 0; index--)
        stack.push({ value: current[index], key: index, parent: frame });
    } else if (current !== null && typeof current === 'object') {
      const entries = Object.entries(current);
      for (let index = entries.length - 1; index >= 0; index--) {
        const [key, child] = entries[index]!;
        stack.push({ value: child, key, parent: frame });
      }
    }
  }
  return undefined;
}

/** Why a call holding such a number is denied, and what to send instead (the model reads it). */
export const inexactNumberReason = ({ path, read }: InexactNumber): string =>
  `${path} was read as ${read}: a number past ${Number.MAX_SAFE_INTEGER} in magnitude cannot be read exactly, ` +
  'so it may not be the number that was written; send such a value (an id, say) as a string';

function pathOf(frame: Frame): PropertyKey[] {
  const path: PropertyKey[] = [];
  for (let at: Frame | undefined = frame; at?.parent; at = at.parent) path.push(at.key!);
  return path.reverse();
}
