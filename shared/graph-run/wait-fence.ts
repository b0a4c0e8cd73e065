/**
 * Which attempt of a task-token wait is the live one. Step Functions retries a wait's Lambda invocation that
 * failed (a crash, `Lambda.Unknown`, or an Invoke call that timed out client-side, `Lambda.SdkClientException`)
 * with a fresh task token, while the first invocation may still be running: that late attempt must never
 * store its token (now dead: its task attempt failed) over the live one, or nothing could answer the wait.
 *
 * A wait's attempt is ordered by, from the context object
 * (https://docs.aws.amazon.com/step-functions/latest/dg/input-output-contextobject.html):
 * - `startTime`: `$$.Execution.StartTime`, when the execution started (ISO 8601). A graph run has one live
 *   execution at a time, and an operator's retry of a failed run's step starts a new one, which may re-dispatch
 *   a still-waiting step in its same attempt with `RetryCount` back at 0: its waits come after every wait of
 *   the executions before it, whatever their counts, and a late invocation of a dead execution is stale. A
 *   redrive keeps the execution (its ARN) and raises `RedriveCount` (below);
 * - `entry`: which entry into the state this is. A step wait: the step's `attempt` (one entry per step attempt,
 *   an operator's retry starts the next). `AwaitResume`: the run's revision when Advance decided `paused`
 *   (between two entries a resume writes the run, so the revision has moved);
 *   A RequestApproval (the run machine's, or a graph's `ApproveServiceStep`): the run's turn (0 for a graph step;
 *   an approval is waited on in one entry only, shared/approvals-http/request-record.ts);
 * - `redriveCount`: `$$.Execution.RedriveCount`, which a redrive of the execution raises;
 * - `retryCount`: `$$.State.RetryCount`, "0 on the first attempt of each entry, +1 per retry".
 * A later attempt always has a greater fence; a repeated call of one attempt has the same fence and token.
 *
 * Three generations of waits meet in the table, and byte order ranks them: none < (entry, redrive, retry) <
 * (start, entry, redrive, retry). A wait without a fence (an execution of an earlier definition) never replaces
 * a fenced one. A fence without a start time comes from an execution started before the definition passed
 * `$$.Execution.StartTime` ("Running executions will continue to use the previous definition",
 * https://docs.aws.amazon.com/step-functions/latest/apireference/API_UpdateStateMachine.html); it begins with
 * its 15-digit entry, so with `0` (a revision or an attempt is far below 10^14), while a fence with one begins
 * with the start's year, 1000 to 9999, so with `1`-`9`. A stored fence of the earlier definition therefore never
 * holds off a wait of a later execution (it is replaced), and a late wait of that definition never replaces a
 * newer one (it is `superseded`): the executions of one run follow one another, so the newer fence is the later
 * execution's. The one exception is an execution started within seconds after the update, which may still get
 * the previous definition (https://docs.aws.amazon.com/step-functions/latest/dg/concepts-read-consistency.html):
 * were it a step retry of a run whose execution had already started, stored a wait and failed on the new
 * definition in those seconds, its waits would be refused (`superseded`, then the step's timeout) — refused,
 * never a dead token kept over a live one.
 */
import { IsoTimeSchema } from '../schemas/common.ts';
import * as z from '../zod.ts';

/** What the state machine passes from the context object (absent from executions of an earlier definition). */
export const WaitAttemptSchema = z.object({
  retryCount: z.number().check(z.int(), z.nonnegative()),
  redriveCount: z._default(z.number().check(z.int(), z.nonnegative()), 0),
  /** `$$.Execution.StartTime`; absent from executions of a definition that did not pass it yet. */
  startTime: z.optional(IsoTimeSchema),
});
export type WaitAttempt = z.output<typeof WaitAttemptSchema>;

const DIGITS = { entry: 15, count: 6 } as const;

/** The start time at millisecond precision, fixed width (`YYYY-MM-DDTHH:mm:ss.sssZ`), so bytes order it. */
function startPart(startTime: string): string {
  const ms = Date.parse(startTime);
  const iso = Number.isNaN(ms) ? '' : new Date(ms).toISOString();
  if (!/^[1-9]\d{3}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/.test(iso))
    throw new RangeError(
      `wait fence: startTime ${startTime} is not an ISO 8601 time of the years 1000 to 9999`,
    );
  return iso;
}

/**
 * The fence as a string whose byte order is the attempts' order (a UTC time and fixed-width decimals), so
 * DynamoDB compares it in a ConditionExpression (`<` on strings compares UTF-8 bytes).
 *
 * @example
 * waitFence(2, { startTime: '2026-12-03T09:10:35.123Z', redriveCount: 0, retryCount: 1 });
 * // '2026-12-03T09:10:35.123Z.000000000000002.000000.000001'
 */
export function waitFence(entry: number, attempt: WaitAttempt): string {
  const part = (value: number, digits: number, name: string) => {
    if (!Number.isSafeInteger(value) || value < 0 || String(value).length > digits)
      throw new RangeError(`wait fence: ${name} ${value} is not an integer from 0 to ${digits} digits`);
    return String(value).padStart(digits, '0');
  };
  return [
    ...(attempt.startTime === undefined ? [] : [startPart(attempt.startTime)]),
    part(entry, DIGITS.entry, 'entry'),
    part(attempt.redriveCount, DIGITS.count, 'redriveCount'),
    part(attempt.retryCount, DIGITS.count, 'retryCount'),
  ].join('.');
}

/**
 * Whether a wait fenced `stored` is of a later attempt than one fenced `mine` (then `mine` is stale). An unfenced
 * wait comes from an execution of an earlier definition: it is stale beside a fenced one, as the resume token's
 * put (`attribute_not_exists(fence)`, shared/store/steps.ts) has it. Fences of either format compare by bytes,
 * as that put's condition does (above: every fence without a start time is below every fence with one).
 */
export const isLaterWait = (stored: string | undefined, mine: string | undefined): boolean =>
  stored !== undefined && (mine === undefined || stored > mine);
