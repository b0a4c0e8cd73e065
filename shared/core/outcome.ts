/** What a turn hands to the state machine's Choice: one variant per branch. */
import type { StopReason } from '../schemas/run.ts';
import type { TurnAttempt } from './attempt.ts';

/** The run pointer the state machine carries: ids and counters only. */
export type TurnPointer = { runId: string; turn: number; segmentStartTurn: number };

/** What a Turn invocation gets: the pointer, and which attempt of the Turn state it is (attempt.ts). */
export type TurnInput = TurnPointer & { attempt?: TurnAttempt | undefined };

export type TurnOutcome =
  | (TurnPointer & { next: 'continue' })
  | (TurnPointer & { next: 'continue_as_new' })
  | (TurnPointer & { next: 'await_approval'; approvalTimeoutSeconds: number })
  | (TurnPointer & { next: 'done' })
  | (TurnPointer & { next: 'failed'; stopReason: StopReason });
