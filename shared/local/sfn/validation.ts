/** Request validation of the local Step Functions API, with AWS's error codes. */
import { SfnApiError } from './errors.ts';
import { SFN_PAYLOAD_LIMIT_BYTES } from './types.ts';

type JsonValue = null | boolean | number | string | JsonValue[] | { [key: string]: JsonValue };

/** Characters AWS refuses in execution names: whitespace, brackets, wildcards, these specials, control chars. */
const FORBIDDEN_NAME_CHARACTERS = new Set('<>{}[]?*"#%\\^|~`$&,;:/');

/** Throws `InvalidName` unless `name` is 1–80 characters without the characters AWS refuses. */
export function validateExecutionName(name: string): void {
  const refused = [...name].some((character) => {
    const code = character.codePointAt(0) ?? 0;
    return (
      FORBIDDEN_NAME_CHARACTERS.has(character) ||
      /\s/.test(character) ||
      code <= 0x1f ||
      (code >= 0x7f && code <= 0x9f)
    );
  });
  if (name.length === 0 || name.length > 80 || refused) {
    throw new SfnApiError('InvalidName', `Invalid Name: '${name}'`);
  }
}

/** Parses an execution input; `InvalidExecutionInput` when it is not JSON or over 256 KiB. */
export function validateExecutionInput(input: string): JsonValue {
  if (Buffer.byteLength(input) > SFN_PAYLOAD_LIMIT_BYTES) {
    throw new SfnApiError('InvalidExecutionInput', 'Invalid Execution Input: over 262144 bytes');
  }
  try {
    return JSON.parse(input) as JsonValue;
  } catch (error) {
    throw new SfnApiError('InvalidExecutionInput', `Invalid Execution Input: ${(error as Error).message}`);
  }
}

/** Parses a SendTaskSuccess output; `InvalidOutput` when it is not JSON or over 256 KiB. */
export function validateTaskOutput(output: string): JsonValue {
  if (Buffer.byteLength(output) > SFN_PAYLOAD_LIMIT_BYTES) {
    throw new SfnApiError('InvalidOutput', 'Invalid Output: over 262144 bytes');
  }
  try {
    return JSON.parse(output) as JsonValue;
  } catch (error) {
    throw new SfnApiError('InvalidOutput', `Invalid Output: ${(error as Error).message}`);
  }
}
