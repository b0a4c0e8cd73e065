/** The real clock and id source, for the composition roots (the core never reads time itself). */
import { randomBytes } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';
import type { Clock, Ids, WaitingClock } from '../core/ports.ts';

export const systemClock: WaitingClock = {
  nowMs: () => Date.now(),
  sleep: async (ms) => void (await sleep(ms)),
};

/** Ids like `run_3f9a…`: 128 random bits in hex, so they match the schemas' `[A-Za-z0-9]` id patterns. */
export const randomIds: Ids = { next: (prefix) => `${prefix}_${randomBytes(16).toString('hex')}` };

/** A clock that waits: its own `sleep` if it has one, else real time (a fixed test clock in a live stack). */
export const waitingClock = (clock: Clock | WaitingClock): WaitingClock =>
  'sleep' in clock ? clock : { nowMs: () => clock.nowMs(), sleep: systemClock.sleep };
