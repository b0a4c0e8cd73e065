/**
 * The bytes a value costs in an API response served by Lambda behind API Gateway: the response is JSON, and
 * the integration carries it as the `body` string of the function's own JSON result
 * (https://docs.aws.amazon.com/apigateway/latest/developerguide/http-api-develop-integrations-lambda.html),
 * so the value is escaped twice. That result is what Lambda's 6 MB limit counts.
 */
const encoder = new TextEncoder();

/** UTF-8 bytes of `value` as JSON inside a JSON string (the surrounding quotes not counted). */
export function encodedBytes(value: unknown): number {
  return encoder.encode(JSON.stringify(JSON.stringify(value) ?? 'null')).length - 2;
}

const SHORT_ESCAPES = new Set([0x08, 0x09, 0x0a, 0x0c, 0x0d]);

/**
 * What one character (a code point, or a lone surrogate) of a string costs the same way: `"` and `\` 4
 * bytes (`\\\"`), `\n` and its kind 3 (`\\n`), other control characters and lone surrogates 7 (`\\u0001`),
 * anything else its UTF-8 bytes.
 */
export function encodedCharBytes(char: string): number {
  const code = char.codePointAt(0) ?? 0;
  if (code === 0x22 || code === 0x5c) return 4;
  if (code < 0x20) return SHORT_ESCAPES.has(code) ? 3 : 7;
  if (code < 0x80) return 1;
  if (code < 0x800) return 2;
  if (code >= 0xd800 && code <= 0xdfff) return 7;
  return code < 0x10000 ? 3 : 4;
}
