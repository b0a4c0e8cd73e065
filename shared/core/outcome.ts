/** What a turn hands to the state machine's Choice: one variant per branch. */
import type { StopReason } from '../schemas/run.ts';
import type { TurnAttempt } from './attempt.ts';

/** The run pointer the state machine carries: ids and counters only. */
export type TurnPointer = { runId: string; turn: number; segmentStartTurn: number };

/**
 * What a Turn invocation gets: the pointer, which attempt of the Turn state it is (attempt.ts), and where the
 * run's workflow head is when its execution's input says (a read hint for the execution's first turn; the run
 * read decides whose head is used: turn-context.ts).
 */
export type TurnInput = TurnPointer & {
  attempt?: TurnAttempt | undefined;
  headHint?: { owner: string; workflowId: string } | undefined;
  /** The previous turn's `readHint`, when the state that entered this Turn carries one (see `ReadHint`). */
  readHint?: ReadHint | undefined;
};

/**
 * What the next turn reads, as the turn that routed to it left the run (a `continue` outcome of a run whose
 * live policy is a workflow head): where the head is, and how many messages the run holds. A read hint only:
 * the next turn names the run item, the messages it does not hold and the head by key in one request, and the
 * run item it reads decides (shared/store/turn-read.ts). Ids and a counter, like the rest of the state.
 */
export type ReadHint = { owner: string; workflowId: string; messageCount: number };

export type TurnOutcome =
  | (TurnPointer & { next: 'continue'; readHint?: ReadHint })
  | (TurnPointer & { next: 'continue_as_new' })
  | (TurnPointer & {
      next: 'await_approval';
      approvalTimeoutSeconds: number;
      /**
       * The approvals the run waits on (ids only, at most one per tool call of a message): RequestApproval reads
       * them with the run in one request instead of reading the run first to learn them. A hint, not the list:
       * the run's `pendingApprovalIds` decides. Absent in a state from an earlier release.
       */
      approvalIds?: string[];
    })
  | (TurnPointer & { next: 'done' })
  | (TurnPointer & { next: 'failed'; stopReason: StopReason });
