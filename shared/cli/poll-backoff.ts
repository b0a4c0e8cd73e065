/**
 * How long the CLI's followers (`run start --wait`, `run list --watch`, `job submit --wait`) wait between
 * polls: the shortest wait while what they follow changes, doubling while it does not, up to a cap. Against a
 * deployment every poll is an API Gateway request and an Api invocation (and DynamoDB reads); a run waiting
 * hours for an approval is followed at the cap, not at the pace of a run that is moving (docs/cli.md, "Polling").
 */
export type PollBackoff = {
  /** The wait before the next poll, given whether the last poll saw a change. */
  next(changed: boolean): number;
};

export type PollBackoffOptions = { minMs: number; maxMs: number };

export const POLL_BACKOFF = {
  /** `run start --wait`: a turn's progress lines as they come. */
  runWait: { minMs: 400, maxMs: 5_000 },
  /** `run list --watch` and `job submit --wait`. */
  list: { minMs: 1_000, maxMs: 10_000 },
} as const satisfies Record<string, PollBackoffOptions>;

export function pollBackoff({ minMs, maxMs }: PollBackoffOptions): PollBackoff {
  if (!(minMs >= 0 && maxMs >= minMs))
    throw new Error(`poll backoff: need 0 ≤ minMs ≤ maxMs, got ${minMs}, ${maxMs}`);
  let wait = minMs;
  return {
    next(changed) {
      wait = changed ? minMs : Math.min(maxMs, Math.max(wait * 2, 1));
      return wait;
    },
  };
}

/** A fixed wait (a caller's `intervalMs`): the same backoff shape, never growing. */
export const fixedPoll = (ms: number): PollBackoff => pollBackoff({ minMs: ms, maxMs: ms });
