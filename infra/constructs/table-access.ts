/**
 * What each function may do on the table: the DynamoDB actions its code calls on AWS, no more. The offline
 * IAM check (test/iam/recorded-calls.test.ts) records every call while driving every function and fails on a
 * call these lists do not allow, and on an action listed here that no call uses.
 *
 * `TransactWriteItems` is authorized as its parts (PutItem, UpdateItem, DeleteItem, ConditionCheckItem):
 * https://docs.aws.amazon.com/amazondynamodb/latest/developerguide/transaction-apis-iam.html
 * DeleteItem is granted only in the partitions DELETE_PARTITIONS names (a `dynamodb:LeadingKeys` condition).
 * The approval pages are unauthenticated (the signed link is the credential): they can read and record a
 * decision, never scan, query or delete.
 */
import type { HandlerName } from './state-names.ts';

const READ = 'dynamodb:GetItem';
const WRITE = 'dynamodb:PutItem';
const UPDATE = 'dynamodb:UpdateItem';
const QUERY = 'dynamodb:Query';
const DELETE = 'dynamodb:DeleteItem';
const CONDITION_CHECK = 'dynamodb:ConditionCheckItem';
/**
 * Reading several items in one request: a run and its approvals (shared/store/approvals.ts), audit entries
 * (audit-ranges.ts), a turn's run and workflow head (run-with-messages.ts; on a run's first turn with its
 * first message: first-turn-read.ts).
 */
const BATCH_READ = 'dynamodb:BatchGetItem';

/** The DynamoDB action whose grants are scoped to partitions (DELETE_PARTITIONS). */
export const DELETE_ACTION = DELETE;

/*
 * Partition key patterns (docs/data-model.md, shared/store/keys.ts, shared/jobs/records.ts), as `StringLike`
 * matches them on `dynamodb:LeadingKeys`.
 */
/** `PENDINGRUN#<hour>`: a pending-run marker (shared/store/pending-runs.ts). */
const PENDING_RUNS = 'PENDINGRUN#*';
/**
 * `OWNER#<owner>`: a pending anchor (anchors.ts, anchor-group.ts, anchor-repair.ts) and a workflow's name claim
 * (workflows.ts). The partition also holds the owner's workflows and chains: DynamoDB's conditions match the
 * partition key only (there is no condition key for the sort key), so this grant cannot tell them apart.
 */
const OWNER = 'OWNER#*';
/** `TRIGGERS#<type>`: the trigger index (trigger-index.ts). */
const TRIGGERS = 'TRIGGERS#*';
/** `GRANT#<grantId>`: a delegated job's queue, slot and coalescing entries (shared/jobs/queue-store.ts). */
const GRANT = 'GRANT#*';
/** `CLIENT#<clientId>`: a grant head of before grants were per owner, moved by its next change (grant-store.ts). */
const LEGACY_GRANT_HEAD = 'CLIENT#*';

/**
 * The partitions each function that deletes may delete in, and no other: its `dynamodb:DeleteItem` grant carries
 * `ForAllValues:StringLike` on `dynamodb:LeadingKeys` (RunTable.grantDeleteIn). A Delete part of a transaction is
 * authorized as a DeleteItem of its item
 * (https://docs.aws.amazon.com/amazondynamodb/latest/developerguide/transaction-apis-iam.html), so Turn, which
 * deletes only to drop a run's pending-run marker in its first commit, may delete nothing outside the markers'
 * partitions: neither a run's items nor an owner's workflows. Checked offline: test/iam/delete-partitions.test.ts.
 */
export const DELETE_PARTITIONS: Readonly<Partial<Record<HandlerName, readonly string[]>>> = {
  turn: [PENDING_RUNS],
  'graph-advance': [PENDING_RUNS],
  // A pending anchor; a run it ends before its first start (a failed start) loses its marker.
  'mark-failed': [PENDING_RUNS, OWNER],
  external: [PENDING_RUNS, OWNER],
  // A pending anchor.
  deliver: [OWNER],
  // A cancel (marker, pending anchor), a workflow's delete (name claim, trigger index), jobs (queue entries) and
  // grants (a legacy head).
  api: [PENDING_RUNS, OWNER, TRIGGERS, GRANT, LEGACY_GRANT_HEAD],
  // Each trigger-index put deletes the workflow's entry of the other trigger type.
  'workflow-write': [TRIGGERS],
  // Jobs' queue entries; markers of settled API starts; a cancel's pending anchor.
  'jobs-sweep': [PENDING_RUNS, OWNER, GRANT],
  // Jobs' queue entries; a cancel's pending anchor (a job's run carries no marker: pending-runs.ts watchesStart).
  mcp: [OWNER, GRANT],
};

export const TABLE_ACCESS: Readonly<Record<HandlerName, readonly string[]>> = {
  // Loads runs, transcripts and the ledger; commits turns; appends notes and day spend (UpdateItem); a resume
  // from approvals checks the workflow head as a ConditionCheck of its first commit (the live policy, no read).
  // The first commit of an API start without an Idempotency-Key deletes its pending-run marker (DeleteItem in
  // the commit's transaction: shared/store/pending-runs.ts). A turn in a container that holds the run's
  // transcript reads the run and the workflow head in one BatchGetItem (shared/store/run-with-messages.ts), and
  // a run's first turn the run, its first message and the head (shared/store/first-turn-read.ts).
  turn: [READ, BATCH_READ, WRITE, UPDATE, QUERY, DELETE, CONDITION_CHECK],
  // Reads the run and its pending approvals (one BatchGetItem when the state names them; a state from an
  // earlier release: the run first, by GetItem), stores the task token on them with the notices' audit.
  'request-approval': [READ, BATCH_READ, WRITE],
  // Marks due approvals expired.
  expire: [READ, WRITE],
  // Reads the ledger for the report, records the delivery and anchors the run's audit head. Anchoring
  // (shared/store/anchors.ts, anchor-group.ts) deletes the run's pending anchor in the anchor's transaction;
  // a run that lost the owner chain's head registers its head (a ConditionCheck of its marker) and finds the
  // owner's pending heads (Query).
  deliver: [READ, WRITE, QUERY, DELETE, CONDITION_CHECK],
  // Reads the run's audit chain, records the failure; anchors the run's head as Deliver does. A run that still
  // holds a budget reservation with a day ceiling (every tool turn of a `maxUsdPerDay` workflow or grant
  // reserves the next turn ahead) gives it back to the day in the same transaction: the day counter's ADD is an
  // Update action (UpdateItem), and so is the graph machine's MarkGraphFailed, the same function.
  'mark-failed': [READ, WRITE, UPDATE, QUERY, DELETE, CONDITION_CHECK],
  // Reads the approval, the run and the workflow head (one BatchGetItem when the link names them), records the
  // decision; an approval is conditional on the head revision its page showed (a ConditionCheck, no read:
  // shared/approvals-http/route-decide.ts).
  'approval-http': [READ, BATCH_READ, WRITE, CONDITION_CHECK],
  // Workflows, versions, runs, listings (queries and the by-owner index); deleting a workflow name;
  // delegated jobs: the admission counter (UpdateItem) and queue entries (DeleteItem), docs/jobs.md; a cancel
  // anchors the run's head as Deliver does. `GET /v1/audit` checks each signed head on a page against the chain
  // entries it signs, read together (BatchGetItem, shared/store/audit-ranges.ts).
  api: [READ, BATCH_READ, WRITE, UPDATE, QUERY, DELETE, CONDITION_CHECK],
  // Creates workflows and saves, replaces and publishes versions: reads the head and version, writes them with
  // the audit entries in one transaction (replacing a draft checks the head as a ConditionCheck), and keeps
  // the trigger index (each entry put deletes the workflow's entry of the other trigger type).
  'workflow-write': [READ, WRITE, DELETE, CONDITION_CHECK],
  // Creates the run once per scheduled time or event id, with turn 0's budget reservation: a workflow with a
  // day ceiling adds the reservation to the day's counter in the creation's transaction, an Update action
  // (UpdateItem; shared/core/first-reservation.ts).
  'start-run': [READ, WRITE, UPDATE],
  // Delegated jobs: settles ended runs' jobs, promotes queued ones (counter, queue and slot entries), and moves
  // the scheduled sweep's cursor before and after each grant (conditional PutItems, sweep-cursor.ts). A job
  // cancelled while it was being started has its run cancelled here, which anchors the run's head as Deliver
  // does (a pending anchor under contention: ConditionCheckItem). It also settles API starts left pending:
  // it queries the pending-run markers, removes those of started runs (DeleteItem) and ends the others.
  'jobs-sweep': [READ, WRITE, UPDATE, QUERY, DELETE, CONDITION_CHECK],
  // The jobs MCP server: the same job operations as the api's /v1/jobs (admission, queue, cancel).
  // A cancel anchors the run's head as Deliver does (a pending anchor under contention: ConditionCheckItem).
  mcp: [READ, WRITE, UPDATE, QUERY, DELETE, CONDITION_CHECK],
  // Graph runs: loads the run with its steps (Query), reads the bound version, commits step changes; a human
  // task whose wait timed out is recorded expired (GetItem, then a Put in the step's transaction). A graph run
  // started by the API without an Idempotency-Key loses its pending-run marker in its first commit (DeleteItem).
  'graph-advance': [READ, WRITE, QUERY, DELETE],
  // A service step: the run with its steps and ledger (Query), the version; pending and settle commits; the
  // workflow head as a ConditionCheck of the commit that lets a call go ahead (the live policy, no read).
  // A step may run a built-in action: notes_put is a PutItem, notes_append an UpdateItem (list_append).
  'graph-service': [READ, WRITE, UPDATE, QUERY, CONDITION_CHECK],
  // Starts a child agent run (its run item, first message, audit) and records the wait on the step. The child's
  // creation makes turn 0's reservation: an ADD on the graph run's spend counter (the graph's maxUsdPerRun over
  // all its children) and, with a maxUsdPerDay, on the day's counter: Update actions (UpdateItem).
  'graph-wait': [READ, WRITE, UPDATE, QUERY],
  // A human task: the run with its steps (Query), the version; the task record and the wait on the step.
  'human-task': [READ, WRITE, QUERY],
  // External runs: the run, its version and ledger (Query), commits with ledger rows and audit, each fenced on
  // the workflow's live head (a ConditionCheck, shared/external/run/live-policy.ts), anchors (as Deliver does).
  external: [READ, WRITE, QUERY, DELETE, CONDITION_CHECK],
};
