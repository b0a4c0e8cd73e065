/** Key builders for the single table. Layout and access patterns: docs/data-model.md. */

const pad = (value: number, width: number) => String(value).padStart(width, '0');

export type ItemKey = { pk: string; sk: string };

export const keys = {
  workflowHead: (owner: string, workflowId: string): ItemKey => ({
    pk: `OWNER#${owner}`,
    sk: `WF#${workflowId}`,
  }),
  workflowVersion: (owner: string, workflowId: string, version: number): ItemKey => ({
    pk: `OWNER#${owner}`,
    sk: `WFV#${workflowId}#${pad(version, 10)}`,
  }),
  workflowName: (owner: string, name: string): ItemKey => ({ pk: `OWNER#${owner}`, sk: `WFNAME#${name}` }),
  run: (runId: string): ItemKey => ({ pk: `RUN#${runId}`, sk: 'RUN' }),
  message: (runId: string, seq: number): ItemKey => ({ pk: `RUN#${runId}`, sk: `MSG#${pad(seq, 6)}` }),
  /** Continuation item `part` (1…) of a message too large for one item; sorts right after its head. */
  messagePart: (runId: string, seq: number, part: number): ItemKey => ({
    pk: `RUN#${runId}`,
    sk: `MSG#${pad(seq, 6)}#${pad(part, 4)}`,
  }),
  ledger: (runId: string, toolUseId: string): ItemKey => ({ pk: `RUN#${runId}`, sk: `TOOL#${toolUseId}` }),
  audit: (runId: string, seq: number): ItemKey => ({ pk: `RUN#${runId}`, sk: `AUD#${pad(seq, 9)}` }),
  note: (runId: string, name: string): ItemKey => ({ pk: `RUN#${runId}`, sk: `NOTE#${name}` }),
  /** The task token of a paused graph run's execution, waiting for a resume (never part of the run item). */
  resumeToken: (runId: string): ItemKey => ({ pk: `RUN#${runId}`, sk: 'RESUME' }),
  /** A graph run's step; sorts between the run item (`RUN`) and its ledger rows (`TOOL#`). */
  step: (runId: string, stepId: string): ItemKey => ({ pk: `RUN#${runId}`, sk: `STEP#${stepId}` }),
  approval: (approvalId: string): ItemKey => ({ pk: `APR#${approvalId}`, sk: 'APR' }),
  /** A human task lives in its run's partition: a cancelled run finds its open tasks with one query. */
  humanTask: (runId: string, stepId: string, attempt: number): ItemKey => ({
    pk: `RUN#${runId}`,
    sk: `HTK#${stepId}#${pad(attempt, 4)}`,
  }),
  daySpend: (owner: string, workflowId: string, day: string): ItemKey => ({
    pk: `SPEND#${owner}#${workflowId}`,
    sk: `DAY#${day}`,
  }),
  /**
   * A graph run's spend counter: its child runs' spend and reservations together, against the graph's
   * `maxUsdPerRun`. In the graph run's partition, sorting between `AUD#` and `HTK#`: outside every range read
   * (the turn's `MSG#`…`RUN`, the graph's `RUN`…`TOOL#`).
   */
  graphSpend: (graphRunId: string): ItemKey => ({ pk: `RUN#${graphRunId}`, sk: 'BUDGET' }),
  idempotency: (owner: string, scope: string, key: string): ItemKey => ({
    pk: `IDEM#${owner}#${scope}#${key}`,
    sk: 'IDEM',
  }),
  /**
   * A run created pending that nothing but the pending-runs sweep could find again if its start never happened
   * (pending-runs.ts): bucketed by the hour it was created in, sorted by its creation time.
   */
  pendingRun: (createdAt: string, runId: string): ItemKey => ({
    pk: `PENDINGRUN#${createdAt.slice(0, 13)}`,
    sk: `${createdAt}#${runId}`,
  }),
  ownerAnchor: (owner: string, seq: number): ItemKey => ({
    pk: `OWNER#${owner}`,
    sk: `ANCHOR#${pad(seq, 9)}`,
  }),
  ownerAnchorHead: (owner: string): ItemKey => ({ pk: `OWNER#${owner}`, sk: 'ANCHORHEAD' }),
  /** Marks a run anchored: points at its latest anchor. */
  ownerAnchorRun: (owner: string, runId: string): ItemKey => ({
    pk: `OWNER#${owner}`,
    sk: `ANCHORRUN#${runId}`,
  }),
  /** A run head waiting to be anchored by the owner's next group commit (shared/store/anchor-group.ts). */
  ownerAnchorPending: (owner: string, runId: string): ItemKey => ({
    pk: `OWNER#${owner}`,
    sk: `ANCHORPENDING#${runId}`,
  }),
  ownerChange: (owner: string, seq: number): ItemKey => ({
    pk: `OWNER#${owner}`,
    sk: `CHANGE#${pad(seq, 9)}`,
  }),
  ownerChangeHead: (owner: string): ItemKey => ({ pk: `OWNER#${owner}`, sk: 'CHANGEHEAD' }),
  /** A signed head, keyed by the lengths of the two chains it covers (the same heads are signed once). */
  signedHead: (owner: string, anchors: number, changes: number): ItemKey => ({
    pk: `OWNER#${owner}`,
    sk: `SIGNED#${pad(anchors, 9)}#${pad(changes, 9)}`,
  }),
} as const;

export const prefixes = {
  workflowHead: 'WF#',
  workflowVersion: (workflowId: string) => `WFV#${workflowId}#`,
  message: 'MSG#',
  ledger: 'TOOL#',
  audit: 'AUD#',
  note: 'NOTE#',
  step: 'STEP#',
  humanTask: 'HTK#',
  ownerAnchor: 'ANCHOR#',
  ownerAnchorPending: 'ANCHORPENDING#',
  ownerChange: 'CHANGE#',
  signedHead: 'SIGNED#',
} as const;

/** GSI keys: runs, approvals and human tasks by owner (gsi1), runs by workflow (gsi2). */
export const indexKeys = {
  runByOwner: (owner: string, createdAt: string, runId: string) => ({
    gsi1pk: `OWNER#${owner}`,
    gsi1sk: `RUN#${createdAt}#${runId}`,
  }),
  runByWorkflow: (owner: string, workflowId: string, createdAt: string, runId: string) => ({
    gsi2pk: `WF#${owner}#${workflowId}`,
    gsi2sk: `RUN#${createdAt}#${runId}`,
  }),
  approvalByOwner: (owner: string, createdAt: string, approvalId: string) => ({
    gsi1pk: `OWNER#${owner}`,
    gsi1sk: `APR#${createdAt}#${approvalId}`,
  }),
  /** The owner's human tasks, newest first (the console's pending-tasks page). */
  humanTaskByOwner: (owner: string, createdAt: string, taskId: string) => ({
    gsi1pk: `OWNER#${owner}`,
    gsi1sk: `HTK#${createdAt}#${taskId}`,
  }),
} as const;
