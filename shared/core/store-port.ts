/**
 * The store port of the core. Every write the core makes is one `RunChange`: a fenced transaction that
 * moves the run item from the revision it read to the next one, together with everything that belongs
 * to that step (messages, ledger rows, approvals, audit entries, day spend). Nothing is half-written.
 */
import type { AuditEntryType } from '../audit/index.ts';
import type { Approval, ApprovalStatus } from '../schemas/approval.ts';
import type { StepWrite } from '../schemas/graph-step.ts';
import type { HumanTask, HumanTaskStatus } from '../schemas/human-task.ts';
import type { LedgerRow } from '../schemas/ledger.ts';
import type { TranscriptMessage } from '../schemas/message.ts';
import type { Run } from '../schemas/run.ts';
import type { WorkflowHead, WorkflowVersion } from '../schemas/workflow-record.ts';

/** An audit entry to append; the store seals it onto the run's chain in the same transaction. */
export type AuditInput = { type: AuditEntryType; actor: string; data: Record<string, unknown> };

export type DaySpendChange = {
  owner: string;
  workflowId: string;
  /** UTC day, YYYY-MM-DD. */
  day: string;
  /** Change of the day's total: settled spend plus outstanding reservations. */
  deltaUsd: number;
  /** Change of the outstanding reservations within that total (a reservation +, its settlement or release −). */
  reservedDeltaUsd?: number;
  /** When set, a positive delta is refused if it would take the day's total past this. */
  limitUsd?: number;
};

/** A workflow's day: `totalUsd` (settled spend plus outstanding reservations) and the reserved part. */
export type DaySpend = { totalUsd: number; reservedUsd: number };

/**
 * A change of a graph run's spend counter: what all its child agent runs together have spent and reserved,
 * against the graph's `budget.maxUsdPerRun` (docs/security.md "A graph run's ceiling"). Moved like the day's
 * counter, by the children's reservations, settlements and releases.
 */
export type GraphSpendChange = {
  /** The graph run (the child's `parent.runId`). */
  graphRunId: string;
  /** Change of the total: the children's settled spend plus their outstanding reservations. */
  deltaUsd: number;
  /** Change of the outstanding reservations within that total. */
  reservedDeltaUsd?: number;
  /** When set, a positive delta is refused if it would take the total past this. */
  limitUsd?: number;
};

export type RunChange = {
  /** The run as last read: the write is fenced on its `rev`. */
  run: Run;
  /** The run after this step (its `rev`, `audit` and `updatedAt` are set by the store). */
  next: Run;
  audit?: AuditInput[];
  messages?: TranscriptMessage[];
  ledgerCreate?: LedgerRow[];
  /** Rows that must currently be `pending`; each is settled exactly once. */
  ledgerSettle?: LedgerRow[];
  approvalCreate?: Approval[];
  /**
   * Approval updates, each conditional on the approval's current status and, with `expectedTaskToken`, on the
   * task token it was read with (`null`: none). A token attached since the read fails the update as a
   * RunConflictError (read again), so a decision made from a stale read cannot drop the token that resumes the
   * run, nor hand back an old one.
   */
  approvalUpdate?: {
    approval: Approval;
    expectedStatus: ApprovalStatus;
    expectedTaskToken?: string | null;
  }[];
  daySpend?: DaySpendChange;
  /** A graph child's reservation, settlement or release, on its graph run's spend counter. */
  graphSpend?: GraphSpendChange;
  /** Graph step items, each conditional on the status and attempt it was read in (schemas/graph-step.ts). */
  steps?: StepWrite[];
  /**
   * An operator's retry of a failed graph step reopens its `failed` run (`failed → running`), the one way
   * out of a terminal status; allowed for `kind: graph` runs only.
   */
  reopen?: true;
  /**
   * Human-task records: created (`expectedStatus` absent: it must not exist yet) or replaced, conditional on
   * the status it was read with (a submission is single use: `open` → `submitted` once).
   */
  humanTaskPut?: { task: HumanTask; expectedStatus?: HumanTaskStatus }[];
  /**
   * The live policy as a condition of this very write (no read): the workflow head must still be enabled,
   * not deleted, with this latest version; otherwise nothing is written (WorkflowHeadMovedError). A graph
   * service step puts it on the write that lets a call go ahead (its `pending` row, its approval request).
   */
  liveHead?: { owner: string; workflowId: string; latestVersion: number };
  /**
   * The workflow head, exactly as the caller last saw it, as a condition of this very write (no read): the head
   * must still be at revision `rev` (0: a head stored without one); otherwise nothing is written
   * (WorkflowHeadChangedError). The approval page's decision carries the revision its page was rendered with, so
   * what the page showed about the workflow (whether the action would still run) still holds when it is recorded.
   * Not with `liveHead` (one transaction may not touch an item twice).
   */
  headAt?: { owner: string; workflowId: string; rev: number };
};

/**
 * Where a run belongs: fixed when it is created, never changed by any write. `parked`: the last state this
 * container wrote or read was `awaiting_approval`, so the run's next turn is most likely a resume, which checks
 * the workflow head by a condition of its first commit instead of reading it (turn.ts): no head read ahead.
 */
export type RunScope = { owner: string; workflowId: string; delegated: boolean; parked: boolean };

/** What a turn's first read expects (`RunStore.getRunWithMessages`): hints, never trusted over the run item. */
export type TurnReadOptions = { messageCount?: number };

export interface RunStore {
  getRun(runId: string): Promise<Run | undefined>;
  /**
   * The scope of a run this store has read before (cached per container), so a turn can read the run's
   * workflow head alongside the run; undefined when not known (then the head is read after the run).
   */
  knownRunScope?(runId: string): RunScope | undefined;
  getWorkflowHead(owner: string, workflowId: string): Promise<WorkflowHead | undefined>;
  getWorkflowVersion(
    owner: string,
    workflowId: string,
    version: number,
  ): Promise<WorkflowVersion | undefined>;
  listMessages(runId: string): Promise<TranscriptMessage[]>;
  /**
   * The run (undefined when there is none) and its transcript, read together in one strongly consistent request
   * where the store can (shared/store/run-with-messages.ts). Not a snapshot: a commit may land between the
   * two, so callers check the transcript against the run's `messageCount`. Optional: without it, callers
   * read the run and `listMessages` in parallel. With `headHint`, that workflow head is read too, in the same
   * request where the store can, and returned as `head` (`value` undefined: there is none); a store that
   * returns no `head` leaves it to the caller. `messageCount`: how many messages the caller expects the run
   * to hold (1 on a run's first turn; the previous turn's `ReadHint`), so a store may read the messages it does
   * not hold by key with the run and the head; a hint only: what it returns is the same.
   */
  getRunWithMessages?(
    runId: string,
    headHint?: { owner: string; workflowId: string },
    options?: TurnReadOptions,
  ): Promise<{
    run: Run | undefined;
    messages: TranscriptMessage[];
    head?: { value: WorkflowHead | undefined };
  }>;
  listLedger(runId: string): Promise<LedgerRow[]>;
  getApproval(approvalId: string): Promise<Approval | undefined>;
  /**
   * An approval and its run, in one request when `runIdHint` names its run (shared/store/approvals.ts), and its
   * workflow head in the same request when `headHint` names it (`head`; absent when the hint named another).
   * Optional: without it, callers read the approval, then its run.
   */
  getApprovalWithRun?(
    approvalId: string,
    runIdHint?: string,
    headHint?: { owner: string; workflowId: string },
  ): Promise<
    { approval: Approval; run: Run | undefined; head?: { value: WorkflowHead | undefined } } | undefined
  >;
  /**
   * A run and those of `approvalIds` that exist and are its approvals, in one request where the store can
   * (shared/store/approvals.ts). Not a snapshot: writers fence on the run's revision and each approval's status
   * and task token. Optional: without it, callers read the run, then the approvals.
   */
  getRunWithApprovals?(
    runId: string,
    approvalIds: readonly string[],
  ): Promise<{ run: Run | undefined; approvals: Approval[] }>;
  /** The day's spend counter of a workflow (consistent read); zeros for a day without spend. */
  getDaySpendDetail(owner: string, workflowId: string, day: string): Promise<DaySpend>;
  /** A graph run's spend counter (its child runs' spend, consistent read); zeros before any child reserved. */
  getGraphSpendDetail(graphRunId: string): Promise<DaySpend>;
  /**
   * Seals the run's final audit head into its owner's anchor chain, once (idempotent). `maxAttempts` bounds the
   * rounds it contends for the owner's chain head (default: the store's, under 20 s of waiting): a caller that
   * answers a client within a deadline gives up sooner, its head registered for the owner's next group commit.
   */
  anchorRunHead(run: Run, at: string, options?: { maxAttempts?: number }): Promise<unknown>;
  /** Applies a change atomically; throws RunConflictError, LedgerConflictError, ApprovalAlreadyDecidedError, DayBudgetExceededError, GraphBudgetExceededError, WorkflowHeadMovedError or WorkflowHeadChangedError. */
  commit(change: RunChange): Promise<Run>;
}
