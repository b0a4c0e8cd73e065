import { cutText } from './byte-caps.ts';

/**
 * The caps of an error as a run or a graph step stores it, in UTF-16 units (what `String.prototype.length`
 * counts). The message's is the one a step's error already had (GraphStepSchema reads a longer one as unreadable);
 * a name is a class or an error code, so 200 leaves room for any real one.
 */
export const STORED_ERROR_NAME_UNITS = 200;
export const STORED_ERROR_MESSAGE_UNITS = 2000;

export type StoredError = { name: string; message: string };

/**
 * `error` as a run, a graph step or an audit entry keeps it: name and message cut to their caps (never between
 * the halves of an emoji) and well-formed (a lone surrogate becomes U+FFFD: byte-caps.ts `cutText`). The text
 * often comes from outside (a model API's error body, an engine's answer, a Lambda's `errorMessage`), so it can
 * be any length and carry a lone surrogate, which neither DynamoDB nor the audit chain's canonical JSON can hold.
 * Only the two fields are kept.
 *
 * @example storedError({ name: 'ModelServerError', message: 'x'.repeat(5000) }).message.length === 2000
 */
export function storedError(error: StoredError): StoredError {
  return {
    name: cutText(error.name, STORED_ERROR_NAME_UNITS),
    message: cutText(error.message, STORED_ERROR_MESSAGE_UNITS),
  };
}
