import { cutText } from './byte-caps.ts';

/**
 * Step Functions' caps on a failure's `error` and `cause`, in characters: SendTaskFailure
 * (https://docs.aws.amazon.com/step-functions/latest/apireference/API_SendTaskFailure.html) and StopExecution
 * (https://docs.aws.amazon.com/step-functions/latest/apireference/API_StopExecution.html) take an `error` of at
 * most 256 and a `cause` of at most 32,768, and refuse a longer one with `ValidationException`.
 */
export const SFN_ERROR_MAX_LENGTH = 256;
export const SFN_CAUSE_MAX_LENGTH = 32_768;

/**
 * `error` and `cause` cut to Step Functions' caps (UTF-16 units, never fewer than the characters AWS counts;
 * never between the halves of an emoji; well-formed: byte-caps.ts `cutText`). A cause quoting outside text (a
 * reason, an engine's or a person's words) can be any length, and one refused request would leave the wait open
 * until it times out, or the execution running.
 *
 * @example sfnFailureFields('Cancelled', 'x'.repeat(40_000)).cause.length === 32_768
 */
export function sfnFailureFields(error: string, cause: string): { error: string; cause: string } {
  return { error: cutText(error, SFN_ERROR_MAX_LENGTH), cause: cutText(cause, SFN_CAUSE_MAX_LENGTH) };
}
