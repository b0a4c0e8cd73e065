/**
 * Step Functions execution names. StartExecution takes a name of 1–80 characters, without white space,
 * brackets, wildcards, `" # % \ ^ | ~ \` $ & , ; : /` or control characters, and CloudWatch Logs logging needs
 * it to be only `0-9 A-Z a-z - _` (https://docs.aws.amazon.com/step-functions/latest/apireference/API_StartExecution.html).
 * The name is also the start's idempotency key (unique per state machine for 90 days), so a derived name must
 * be deterministic. The local Step Functions stand-in accepts longer names; AWS answers ValidationException.
 */
import { sha256Hex } from '../audit/index.ts';
import { cutText } from '../core/byte-caps.ts';

export const MAX_EXECUTION_NAME_LENGTH = 80;
const EXECUTION_NAME = /^[A-Za-z0-9_-]{1,80}$/;

/** Whether AWS (with logging on) takes `name` as an execution name. */
export const isExecutionName = (name: string): boolean => EXECUTION_NAME.test(name);

/** Thrown before any call when an execution name would be refused by Step Functions. */
export class ExecutionNameError extends Error {
  override readonly name = 'ExecutionNameError';
}

/**
 * `<runId>-<label>-<part>-<part>…` when that is a valid name; otherwise `<runId>-<label>-<digest of the parts>`,
 * as long as fits: the same parts give the same name, different parts (in practice) different names.
 */
export function derivedExecutionName(runId: string, label: string, ...parts: (string | number)[]): string {
  const readable = [runId, label, ...parts].join('-');
  if (isExecutionName(readable)) return readable;
  const room = MAX_EXECUTION_NAME_LENGTH - runId.length - label.length - 2;
  const name = `${runId}-${label}-${sha256Hex('wf-execution-name/v1\n', parts.map(String).join('\n')).slice(0, room)}`;
  if (room < 16 || !isExecutionName(name))
    throw new ExecutionNameError(`no valid execution name for run ${runId} (${label})`);
  return name;
}

/** Refuses a name Step Functions would refuse, naming the rule. */
export function checkExecutionName(name: string): string {
  if (!isExecutionName(name))
    throw new ExecutionNameError(
      `execution name '${cutText(name, 100)}' is invalid: 1–${MAX_EXECUTION_NAME_LENGTH} characters of A–Z, a–z, 0–9, - and _`,
    );
  return name;
}
