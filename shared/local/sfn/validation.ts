/** Request validation of the local Step Functions API, with AWS's error codes. */
import { SfnApiError } from './errors.ts';
import { checkMember } from './request-rules.ts';
import { SFN_PAYLOAD_LIMIT_BYTES } from './types.ts';

type JsonValue = null | boolean | number | string | JsonValue[] | { [key: string]: JsonValue };

/** Characters AWS refuses in execution names: whitespace, brackets, wildcards, these specials, control chars. */
const FORBIDDEN_NAME_CHARACTERS = new Set('<>{}[]?*"#%\\^|~`$&,;:/');

/**
 * A character StartExecution's `name` must not contain
 * (https://docs.aws.amazon.com/step-functions/latest/apireference/API_StartExecution.html): white space,
 * `< > { } [ ] ? * " # % \ ^ | ~ \` $ & , ; : /`, control characters (U+0000-001F, U+007F-009F, U+FFFE-FFFF),
 * surrogates (U+D800-DFFF: a lone one, as a JS string can hold) and U+10FFFF.
 */
function refusedInName(character: string): boolean {
  const code = character.codePointAt(0) ?? 0;
  return (
    FORBIDDEN_NAME_CHARACTERS.has(character) ||
    /\s/.test(character) ||
    code <= 0x1f ||
    (code >= 0x7f && code <= 0x9f) ||
    code === 0xfffe ||
    code === 0xffff ||
    (code >= 0xd800 && code <= 0xdfff) ||
    code === 0x10ffff
  );
}

/**
 * Throws unless `name` is a name AWS takes: 1–80 characters (`ValidationException`, the length constraint, as
 * over the API: request-rules.ts) without a refused character (`InvalidName`).
 */
export function validateExecutionName(name: string): void {
  checkMember('StartExecution', 'name', name);
  if ([...name].some(refusedInName)) throw new SfnApiError('InvalidName', `Invalid Name: '${name}'`);
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
