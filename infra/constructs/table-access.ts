/**
 * What each function may do on the table: the DynamoDB actions its code calls on AWS, no more. The offline
 * IAM check (test/iam/recorded-calls.test.ts) records every call while driving every function and fails on a
 * call these lists do not allow, and on an action listed here that no call uses.
 *
 * `TransactWriteItems` is authorized as its parts (PutItem, UpdateItem, DeleteItem, ConditionCheckItem):
 * https://docs.aws.amazon.com/amazondynamodb/latest/developerguide/transaction-apis-iam.html
 * DeleteItem is granted only in the partitions DELETE_PARTITIONS names (a `dynamodb:LeadingKeys` condition), and
 * so are PutItem, UpdateItem and ConditionCheckItem of the functions WRITE_PARTITIONS lists.
 * The approval pages are unauthenticated (the signed link is the credential): they can read and record a
 * decision, never scan, query or delete, and write only in runs' and approvals' partitions (WRITE_PARTITIONS).
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

/**
 * The item actions whose grants WRITE_PARTITIONS may scope to partitions (a ConditionCheck writes nothing, but
 * is authorized per item like the writes).
 */
export const PARTITIONED_WRITES = [WRITE, UPDATE, CONDITION_CHECK] as const;
export type PartitionedWrite = (typeof PARTITIONED_WRITES)[number];

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
 * `RUN#<runId>`: a run's item and everything of the run (keys.ts): messages, ledger rows, audit entries, notes,
 * graph steps, human tasks, a graph run's spend counter and resume token. Any run's: no condition key tells one
 * owner's run from another's (the partition key holds no owner), so owner isolation of runs is the code's.
 */
const RUN = 'RUN#*';
/** `APR#<approvalId>`: an approval (keys.ts). */
const APPROVAL = 'APR#*';
/** `SPEND#<owner>#<workflowId>`: a workflow's day spend counters (keys.ts daySpend). */
const DAY_SPEND = 'SPEND#*';
/** `IDEM#<owner>#<scope>#<key>`: an idempotency marker (keys.ts idempotency). */
const IDEMPOTENCY = 'IDEM#*';

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
  // Jobs' queue entries; markers of settled API, schedule and event starts; a cancel's pending anchor.
  'jobs-sweep': [PENDING_RUNS, OWNER, GRANT],
  // Jobs' queue entries; a cancel's pending anchor (a job's run carries no marker: pending-runs.ts watchesStart).
  mcp: [OWNER, GRANT],
};

/**
 * The partitions each listed function may write in with each of its item writes (PutItem, UpdateItem,
 * ConditionCheckItem), and no other: the grant carries `ForAllValues:StringLike` on `dynamodb:LeadingKeys`
 * (RunTable.grantIn), the partition key of the item written, checked or, for a PutItem, the new item's
 * (https://docs.aws.amazon.com/amazondynamodb/latest/developerguide/specifying-conditions.html). The parts of a
 * TransactWriteItems are authorized as these actions, each on its own item
 * (https://docs.aws.amazon.com/amazondynamodb/latest/developerguide/transaction-apis-iam.html), so a run commit
 * is scoped part by part. Each list is what the function's code writes (a static review of its paths, with the
 * recorded calls of test/iam): a function listed here names partitions for every item write TABLE_ACCESS gives
 * it. A function not listed (Api, Mcp, JobsSweep: runs, jobs, grants, markers and owners' items, nearly every
 * kind) keeps its writes table-wide. Checked offline: test/iam/write-partitions.test.ts.
 *
 * The sort key has no condition key: `RUN#*` lets a function write any item of any run, and `OWNER#*` any
 * item of any owner's partition (an anchoring function may put a workflow head as well as an anchor). Owner
 * isolation of runs and owners' items is the code's.
 */
export const WRITE_PARTITIONS: Readonly<
  Partial<Record<HandlerName, Readonly<Partial<Record<PartitionedWrite, readonly string[]>>>>>
> = {
  // The approval pages (the signed link is the credential) and the human-task forms: a decision or a submission
  // is one commit of the run (its item, audit entries, a human task) with the approval; an approval is fenced
  // on the workflow head's revision (a ConditionCheck). Nothing of an owner's workflows, grants or triggers.
  // Every commit of a run moves its item with an Update of what changed (shared/store/run-update.ts) and settles
  // a ledger row with an Update (ledger-settle.ts), so each function that commits a run has UpdateItem in `RUN#`,
  // where its PutItem could already put any item.
  'approval-http': { [WRITE]: [RUN, APPROVAL], [UPDATE]: [RUN], [CONDITION_CHECK]: [OWNER] },
  // The task token on the wait's approvals, their notices' audit entries, an undeliverable one denied.
  'request-approval': { [WRITE]: [RUN, APPROVAL], [UPDATE]: [RUN] },
  // Due approvals expired, with the run item and the audit entries.
  expire: { [WRITE]: [RUN, APPROVAL], [UPDATE]: [RUN] },
  // The wait on the step and the task record: both in the run's partition.
  'human-task': { [WRITE]: [RUN], [UPDATE]: [RUN] },
  // A run created from a schedule or an event (its items, its idempotency marker and its pending-run marker: a
  // trigger whose retries all failed never starts it, shared/store/pending-runs.ts), turn 0's reservation on the
  // day's counter. A redriven trigger whose run ended unstarted takes the marker over with the new run's creation
  // (the same Put of `IDEM#…`, under another condition) and links the ended run to it (`replacedBy`, an Update of
  // its run item: shared/store/runs.ts), so UpdateItem in `RUN#` too, where its PutItem could already put any item.
  'start-run': { [WRITE]: [RUN, IDEMPOTENCY, PENDING_RUNS], [UPDATE]: [RUN, DAY_SPEND] },
  // A graph step's child run (created without a marker: the step's wait finds it), the wait on the step, the
  // resume token; the child's turn 0 reservation on the graph run's counter (its partition) and the day's.
  'graph-wait': { [WRITE]: [RUN], [UPDATE]: [RUN, DAY_SPEND] },
  // Step commits, a timed-out human task expired, a graph run ended.
  'graph-advance': { [WRITE]: [RUN], [UPDATE]: [RUN] },
  // A service step's commits, its approvals, notes (put and list_append), the live head as a ConditionCheck.
  'graph-service': { [WRITE]: [RUN, APPROVAL], [UPDATE]: [RUN], [CONDITION_CHECK]: [OWNER] },
  // Turn commits (messages, ledger, audit, approvals made and expired), notes, the day's and a graph run's
  // spend counters, the workflow head as a ConditionCheck.
  turn: { [WRITE]: [RUN, APPROVAL], [UPDATE]: [RUN, DAY_SPEND], [CONDITION_CHECK]: [OWNER] },
  // The delivery on the run, its head anchored in the owner's chains (anchors, anchor head, pending anchor,
  // signed heads: all `OWNER#`), a pending anchor's marker as a ConditionCheck under contention.
  deliver: { [WRITE]: [RUN, OWNER], [UPDATE]: [RUN], [CONDITION_CHECK]: [OWNER] },
  // A run ended (end-run.ts: open calls answered, the reservation given back to the day's and a graph run's
  // counters), a failed graph's children ended too, and each head anchored as Deliver does.
  'mark-failed': { [WRITE]: [RUN, OWNER], [UPDATE]: [RUN, DAY_SPEND], [CONDITION_CHECK]: [OWNER] },
  // External runs' commits (ledger rows, audit), each fenced on the live head (a ConditionCheck), anchors.
  external: { [WRITE]: [RUN, OWNER], [UPDATE]: [RUN], [CONDITION_CHECK]: [OWNER] },
  // Workflows, versions, drafts and the owner's change chain and signed heads (`OWNER#`), the trigger index
  // fenced on the head (a ConditionCheck): store/workflow-store.ts knows no other item.
  'workflow-write': { [WRITE]: [OWNER, TRIGGERS], [CONDITION_CHECK]: [OWNER] },
};

/**
 * Every function that commits a run sends UpdateItem: the run item moves by an Update of the attributes that
 * changed, fenced on its revision (shared/store/run-update.ts), and a ledger row is settled by an Update
 * conditional on `pending` (ledger-settle.ts).
 */
export const TABLE_ACCESS: Readonly<Record<HandlerName, readonly string[]>> = {
  // Loads runs, transcripts and the ledger; commits turns; appends notes and day spend (UpdateItem); a resume
  // from approvals checks the workflow head as a ConditionCheck of its first commit (the live policy, no read).
  // The first commit of an API, schedule or event start deletes its pending-run marker (DeleteItem in the
  // commit's transaction: shared/store/pending-runs.ts). A turn reads the run, the messages its container
  // does not hold and the workflow head in one BatchGetItem (shared/store/turn-read.ts).
  turn: [READ, BATCH_READ, WRITE, UPDATE, QUERY, DELETE, CONDITION_CHECK],
  // Reads the run and its pending approvals (one BatchGetItem when the state names them; a state from an
  // earlier release: the run first, by GetItem), stores the task token on them with the notices' audit.
  'request-approval': [READ, BATCH_READ, WRITE, UPDATE],
  // Marks due approvals expired.
  expire: [READ, WRITE, UPDATE],
  // Reads the ledger for the report, records the delivery and anchors the run's audit head. Anchoring
  // (shared/store/anchors.ts, anchor-group.ts) deletes the run's pending anchor in the anchor's transaction;
  // a run that lost the owner chain's head registers its head (a ConditionCheck of its marker) and finds the
  // owner's pending heads (Query).
  deliver: [READ, WRITE, UPDATE, QUERY, DELETE, CONDITION_CHECK],
  // Reads the run's audit chain, records the failure; anchors the run's head as Deliver does. A run that still
  // holds a budget reservation with a day ceiling (every tool turn of a `maxUsdPerDay` workflow or grant
  // reserves the next turn ahead) gives it back to the day in the same transaction: the day counter's ADD is an
  // Update action (UpdateItem), and so is the graph machine's MarkGraphFailed, the same function.
  'mark-failed': [READ, WRITE, UPDATE, QUERY, DELETE, CONDITION_CHECK],
  // Reads the approval, the run and the workflow head (one BatchGetItem when the link names them), records the
  // decision; an approval is conditional on the head revision its page showed (a ConditionCheck, no read:
  // shared/approvals-http/route-decide.ts).
  'approval-http': [READ, BATCH_READ, WRITE, UPDATE, CONDITION_CHECK],
  // Workflows, versions, runs, listings (queries and the by-owner index); deleting a workflow name;
  // delegated jobs: the admission counter (UpdateItem) and queue entries (DeleteItem), docs/jobs.md; a cancel
  // anchors the run's head as Deliver does. `GET /v1/audit` checks each signed head on a page against the chain
  // entries it signs, read together (BatchGetItem, shared/store/audit-ranges.ts).
  api: [READ, BATCH_READ, WRITE, UPDATE, QUERY, DELETE, CONDITION_CHECK],
  // Creates workflows and saves, replaces and publishes versions: reads the head and version, writes them with
  // the audit entries in one transaction (replacing a draft checks the head as a ConditionCheck), and keeps
  // the trigger index (each entry put deletes the workflow's entry of the other trigger type).
  'workflow-write': [READ, WRITE, DELETE, CONDITION_CHECK],
  // Creates the run once per scheduled time or event id, with turn 0's budget reservation and its pending-run
  // marker (a PutItem in the creation's transaction): a workflow with a day ceiling adds the reservation to the
  // day's counter in the same transaction, an Update action (UpdateItem; shared/core/first-reservation.ts), as is
  // the link a redriven trigger's new run writes on the run it replaces (`replacedBy`, shared/store/runs.ts). It
  // never deletes: a run it created leaves `pending` (and loses its marker) by another function's commit.
  'start-run': [READ, WRITE, UPDATE],
  // Delegated jobs: settles ended runs' jobs, promotes queued ones (counter, queue and slot entries), and moves
  // the scheduled sweep's cursor before and after each grant (conditional PutItems, sweep-cursor.ts). A job
  // cancelled while it was being started has its run cancelled here, which anchors the run's head as Deliver
  // does (a pending anchor under contention: ConditionCheckItem). It also settles runs left pending (API,
  // schedule and event starts): it queries the pending-run markers, removes those of started runs (DeleteItem)
  // and ends the others.
  'jobs-sweep': [READ, WRITE, UPDATE, QUERY, DELETE, CONDITION_CHECK],
  // The jobs MCP server: the same job operations as the api's /v1/jobs (admission, queue, cancel).
  // A cancel anchors the run's head as Deliver does (a pending anchor under contention: ConditionCheckItem).
  mcp: [READ, WRITE, UPDATE, QUERY, DELETE, CONDITION_CHECK],
  // Graph runs: loads the run with its steps (Query), reads the bound version, commits step changes; a human
  // task whose wait timed out is recorded expired (GetItem, then a Put in the step's transaction). A graph run
  // started by the API without an Idempotency-Key loses its pending-run marker in its first commit (DeleteItem).
  'graph-advance': [READ, WRITE, UPDATE, QUERY, DELETE],
  // A service step: the run with its steps and ledger (Query), the version; pending and settle commits; the
  // workflow head as a ConditionCheck of the commit that lets a call go ahead (the live policy, no read).
  // A step may run a built-in action: notes_put is a PutItem, notes_append an UpdateItem (list_append).
  'graph-service': [READ, WRITE, UPDATE, QUERY, CONDITION_CHECK],
  // Starts a child agent run (its run item, first message, audit) and records the wait on the step. The child's
  // creation makes turn 0's reservation: an ADD on the graph run's spend counter (the graph's maxUsdPerRun over
  // all its children) and, with a maxUsdPerDay, on the day's counter: Update actions (UpdateItem).
  'graph-wait': [READ, WRITE, UPDATE, QUERY],
  // A human task: the run with its steps (Query), the version; the task record and the wait on the step.
  'human-task': [READ, WRITE, UPDATE, QUERY],
  // External runs: the run, its version and ledger (Query), commits with ledger rows and audit, each fenced on
  // the workflow's live head (a ConditionCheck, shared/external/run/live-policy.ts), anchors (as Deliver does).
  external: [READ, WRITE, UPDATE, QUERY, DELETE, CONDITION_CHECK],
};
