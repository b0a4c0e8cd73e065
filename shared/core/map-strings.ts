/** `input` with `map` applied to every string in it, field names included (redaction, well-formed text). */
export function mapStrings(input: unknown, map: (text: string) => string): unknown {
  if (typeof input === 'string') return map(input);
  if (Array.isArray(input)) return input.map((item) => mapStrings(item, map));
  if (input !== null && typeof input === 'object') {
    return Object.fromEntries(
      Object.entries(input).map(([key, inner]) => [map(key), mapStrings(inner, map)]),
    );
  }
  return input;
}
