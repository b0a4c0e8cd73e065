/**
 * Waits before a store retry: exponential backoff with full jitter, a random wait up to
 * min(capMs, baseMs × 2^attempt) (https://aws.amazon.com/blogs/architecture/exponential-backoff-and-jitter/),
 * so writers or readers that collided do not collide again in lockstep.
 */
export const backOff = (attempt: number, limits: { baseMs: number; capMs: number }): Promise<void> =>
  new Promise((resolve) =>
    setTimeout(resolve, Math.random() * Math.min(limits.capMs, limits.baseMs * 2 ** attempt)),
  );
