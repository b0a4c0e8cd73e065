/**
 * Which attempt of a task-token wait is the live one. Step Functions retries a wait's Lambda invocation that
 * failed (a crash, `Lambda.Unknown`, or an Invoke call that timed out client-side, `Lambda.SdkClientException`)
 * with a fresh task token, while the first invocation may still be running: that late attempt must never
 * store its token (now dead: its task attempt failed) over the live one, or nothing could answer the wait.
 *
 * A wait's attempt is ordered by:
 * - `entry`: which entry into the state this is. A step wait: the step's `attempt` (one entry per step attempt,
 *   an operator's retry starts the next). `AwaitResume`: the run's revision when Advance decided `paused`
 *   (between two entries a resume writes the run, so the revision has moved);
 * - `redriveCount`: `$$.Execution.RedriveCount`, which a redrive of the execution raises;
 * - `retryCount`: `$$.State.RetryCount`, "0 on the first attempt of each entry, +1 per retry"
 *   (https://docs.aws.amazon.com/step-functions/latest/dg/input-output-contextobject.html).
 * Within one execution a later attempt always has a greater fence; a repeated call of one attempt has the same
 * fence and token. A wait without a fence (an execution of an earlier definition) never replaces a fenced one.
 * Not covered: a step re-dispatched in its same attempt by a later execution (a failed graph run's step retried)
 * restarts `retryCount` at 0, so a sibling whose earlier execution stored a retried attempt's fence would read as
 * stale (docs/state-machine.md, "Late attempts of a wait").
 */
import * as z from '../zod.ts';

/** What the state machine passes from the context object (absent from executions of an earlier definition). */
export const WaitAttemptSchema = z.object({
  retryCount: z.number().check(z.int(), z.nonnegative()),
  redriveCount: z._default(z.number().check(z.int(), z.nonnegative()), 0),
});
export type WaitAttempt = z.output<typeof WaitAttemptSchema>;

const DIGITS = { entry: 15, count: 6 } as const;

/**
 * The fence as a string whose byte order is the attempts' order (fixed-width decimals), so DynamoDB compares
 * it in a ConditionExpression (`<` on strings compares UTF-8 bytes).
 */
export function waitFence(entry: number, attempt: WaitAttempt): string {
  const part = (value: number, digits: number, name: string) => {
    if (!Number.isSafeInteger(value) || value < 0 || String(value).length > digits)
      throw new RangeError(`wait fence: ${name} ${value} is not an integer from 0 to ${digits} digits`);
    return String(value).padStart(digits, '0');
  };
  return [
    part(entry, DIGITS.entry, 'entry'),
    part(attempt.redriveCount, DIGITS.count, 'redriveCount'),
    part(attempt.retryCount, DIGITS.count, 'retryCount'),
  ].join('.');
}

/**
 * Whether a wait fenced `stored` is of a later attempt than one fenced `mine` (then `mine` is stale). An unfenced
 * wait comes from an execution of an earlier definition: it is stale beside a fenced one, as the resume token's
 * put (`attribute_not_exists(fence)`, shared/store/steps.ts) has it.
 */
export const isLaterWait = (stored: string | undefined, mine: string | undefined): boolean =>
  stored !== undefined && (mine === undefined || stored > mine);
