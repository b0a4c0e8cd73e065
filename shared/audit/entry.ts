import * as z from '../zod.ts';

/**
 * Every kind of audit entry, with what it records. The chain is append-only: a later fact never edits an
 * earlier entry, it adds one (e.g. `approval_decided` after `approval_requested`). `data` carries ids, hashes
 * and references, never secret values.
 */
export const AUDIT_ENTRY_TYPES = {
  // run lifecycle
  run_created: 'The run was created: workflow id and version, trigger, input hash.',
  status_changed: 'The run moved from one status to another (from, to, cause).',
  cancel_requested: 'An owner asked to cancel the run.',
  // model
  model_call: 'One Messages API call: model, turn, stop reason, token usage.',
  // actions
  gate_decision:
    'A requested tool call was classified allow / needs_approval / deny, with the matching rule.',
  dispatch:
    'A tool call was dispatched: tool, args hash, idempotency key, credential references (never values).',
  settle: 'A dispatched tool call finished: outcome, error flag, result hash.',
  denial: 'A tool call was not run (denied by a gate or an approver); the model is told so.',
  egress_blocked: 'An outbound request was refused by the egress guard (host, reason).',
  // approvals
  approval_requested:
    'A pending approval was created for a gated call: approval id, tool, args hash, approvers.',
  approval_notified:
    'A signed link was sent to one approver (channel, approver); the link itself is not recorded.',
  approval_decided: 'An approver approved or denied (approval id, decision, approver).',
  approval_expired: 'A pending approval timed out and was recorded as expired (fail closed).',
  approval_undeliverable:
    'No channel could reach any approver of a pending approval (approvers, why); it was denied at once (fail closed).',
  approval_rejected: 'A decision attempt was refused: invalid, expired or foreign link or form nonce.',
  // human tasks (graph runs)
  human_task_requested:
    'A human task was opened (or its wait re-requested) for a graph step: task id, step, assignees, form hash, expiry.',
  human_task_notified:
    'A signed link to a human task was sent to one assignee (channel, assignee); the link itself is not recorded.',
  human_task_submitted:
    'An assignee submitted the form of a human task: task id, step, the submitted values and their hash.',
  human_task_expired:
    'A human task timed out without a submission and was recorded as expired (fail closed).',
  human_task_closed:
    'A human task was closed without a submission: its run was cancelled or ended, or no assignee could be reached.',
  // budget
  budget_reserved: 'Budget was reserved before a model call or action (amount, unit, remaining).',
  budget_settled: 'A reservation was settled with the actual cost and the unused part released.',
  budget_exceeded: 'A reservation was refused because the budget is exhausted.',
  // turns and output
  turn_committed: 'A turn was durably committed to the ledger (turn number, message hash).',
  delivered: 'The final output was delivered (destination, output hash).',
  // graph runs
  step_changed: 'A graph step moved from one status to another (step, type, attempt, from, to, reason).',
  graph_operation: 'An operator paused, resumed or cancelled a graph run, or retried one of its steps.',
  // external runs
  external_execution:
    'An external run: the decided key and payload (shadow), admission, a terminal observation, an unknown deadline, an incarnation refusal, artifact verification or rejection, cancel facts.',
  // failures
  error: 'An error the run recorded (code, message, retryable); the run may continue or fail.',
} as const;

/** The name of an audit entry kind. */
export type AuditEntryType = keyof typeof AUDIT_ENTRY_TYPES;

const typeNames = Object.keys(AUDIT_ENTRY_TYPES) as [AuditEntryType, ...AuditEntryType[]];

/**
 * Who caused an entry: `system`, `model`, `approver:<id>`, `assignee:<id>` (a human task's submitter),
 * `owner:<id>` or `client:<id>` (a delegated-jobs client, docs/jobs.md), ids without whitespace.
 */
export const AuditActorSchema = z
  .string()
  .check(
    z.regex(
      /^(?:system|model|(?:approver|assignee|owner|client):\S+)$/,
      'actor must be system, model, approver:<id>, assignee:<id>, owner:<id> or client:<id>',
    ),
  );

/** A lower-case hex SHA-256 digest. */
export const HexHashSchema = z
  .string()
  .check(z.regex(/^[0-9a-f]{64}$/, 'must be a lower-case hex SHA-256 digest'));

/**
 * One sealed audit entry. Strict: a field added in storage is a schema failure rather than silently
 * stripped, because an unhashed field would otherwise ride along unverified.
 */
export const AuditEntrySchema = z.strictObject({
  schemaVersion: z.literal(1),
  owner: z.string().check(z.minLength(1)),
  runId: z.string().check(z.minLength(1)),
  seq: z.number().check(z.int(), z.nonnegative()),
  at: z.iso.datetime({ offset: true }),
  type: z.enum(typeNames),
  actor: AuditActorSchema,
  data: z.record(z.string(), z.unknown()),
  prevHash: HexHashSchema,
  hash: HexHashSchema,
});

/** A sealed audit entry. */
export type AuditEntry = z.infer<typeof AuditEntrySchema>;

/** An entry before sealing: everything but the chain links. */
export type UnsealedAuditEntry = Omit<AuditEntry, 'prevHash' | 'hash'>;

/** The schema of an entry before sealing. */
export const UnsealedAuditEntrySchema = z.omit(AuditEntrySchema, { prevHash: true, hash: true });
