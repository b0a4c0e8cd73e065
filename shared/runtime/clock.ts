/** The real clock and id source, for the composition roots (the core never reads time itself). */
import { randomBytes } from 'node:crypto';
import type { Clock, Ids } from '../core/ports.ts';

export const systemClock: Clock = { nowMs: () => Date.now() };

/** Ids like `run_3f9a…`: 128 random bits in hex, so they match the schemas' `[A-Za-z0-9]` id patterns. */
export const randomIds: Ids = { next: (prefix) => `${prefix}_${randomBytes(16).toString('hex')}` };
