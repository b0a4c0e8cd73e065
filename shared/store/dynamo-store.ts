/**
 * The DynamoDB store: the `RunStore` port of the core plus the listing operations the API needs, on top of
 * the workflow store (workflow-store.ts: heads, versions, the trigger index). One table; keys and access
 * patterns in docs/data-model.md.
 */
import { GetCommand, PutCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import type { NotesPort } from '../actions/notes-port.ts';
import type { AuditEntry } from '../audit/index.ts';
import type { LiveDelegation } from '../core/live-policy.ts';
import type { DaySpend, RunChange, RunScope, RunStore, TurnReadOptions } from '../core/store-port.ts';
import { isGrantWorkflowId } from '../schemas/job.ts';
import { type LedgerRow, LedgerRowSchema } from '../schemas/ledger.ts';
import type { TranscriptMessage } from '../schemas/message.ts';
import type { Run } from '../schemas/run.ts';
import type { WorkflowVersion } from '../schemas/workflow-record.ts';
import * as z from '../zod.ts';
import { anchorRunHead, getRunAnchor, listOwnerAnchorItems } from './anchors.ts';
import {
  getApproval,
  getApprovalWithRun,
  getRunWithApprovals,
  type HeadHint,
  listApprovals,
} from './approvals.ts';
import { auditEntriesOf, parseAuditItems } from './audit-items.ts';
import {
  type AuditRangeStart,
  type OwnerChain,
  readAuditRange,
  readNewestSignedHead,
  readOwnerChainHashes,
  readOwnerChainRange,
  readSignedHeadRange,
} from './audit-ranges.ts';
import { commitRunChange } from './commit.ts';
import { getHumanTask, listOwnerHumanTasks, listRunHumanTasks } from './human-tasks.ts';
import { getJobSnapshot, getLiveDelegation } from './job-snapshots.ts';
import { keys, prefixes } from './keys.ts';
import { listLedgerPage } from './ledger-page.ts';
import { assembleMessages } from './message-assembly.ts';
import { readMessageRange } from './message-range.ts';
import { listOwnerChangeItems } from './owner-changes.ts';
import { deletePendingRunMarker, listPendingRunMarkers, type PendingRunMarker } from './pending-runs.ts';
import { queryPrefix, queryPrefixItems } from './reads.ts';
import { RunScopes } from './run-scopes.ts';
import { getRunWithMessages, type RunWithMessages } from './run-with-messages.ts';
import { createRun, getRun, type Idempotency, listRuns, type NewRun, type RunListQuery } from './runs.ts';
import { listSignedHeadItems } from './signed-heads.ts';
import { readStepRange } from './step-range.ts';
import { getResumeToken, loadGraphRun, putResumeToken, settleResumeToken } from './steps.ts';
import { TranscriptCache } from './transcript-cache.ts';
import { readTurnByKey, TURN_READ_MAX_MESSAGES } from './turn-read.ts';
import { WorkflowStore } from './workflow-store.ts';
import { writtenMessages } from './written-messages.ts';

const NoteSchema = z.object({ name: z.string(), lines: z.array(z.string()) });
export type Note = z.infer<typeof NoteSchema>;

export class DynamoStore extends WorkflowStore implements RunStore, NotesPort {
  /** The owner and workflow of runs read in this container (immutable: run-scopes.ts). */
  private readonly scopes = new RunScopes();
  /** The messages of runs read in this container (immutable once written: transcript-cache.ts). */
  private readonly transcripts = new TranscriptCache();

  // ---- RunStore (core port)
  async getRun(runId: string): Promise<Run | undefined> {
    const run = await getRun(this.ctx, runId);
    if (run) this.scopes.remember(run);
    return run;
  }
  /**
   * One of `owner`'s runs: undefined for another owner's run exactly as for a missing id. Callers that check
   * the owner read through this, so an observed store (observed-store.ts) reports only a run the caller may see.
   */
  async getOwnRun(owner: string, runId: string): Promise<Run | undefined> {
    const run = await this.getRun(runId);
    return run?.owner === owner ? run : undefined;
  }
  /**
   * The run and its transcript, and with `headHint` that workflow head, for a turn's first read, in one request
   * where the store can name every item (turn-read.ts): the run item, the messages this container does not hold
   * (transcript-cache.ts: read before, or written by its own commits) and the head, by key in one BatchGetItem.
   * Which messages: up to `messageCount` when the caller expects it (the previous turn's hint, or 1 on a run's
   * first turn), else up to the ones held (none named: the run and the head alone). When the run holds more
   * than was read, or the read stopped short (a message in parts, more than one request's keys), the rest comes
   * by a Query of the run from the first message not held (run-with-messages.ts), the head as read here.
   * Without a head, or with nothing to name by key (no count expected and nothing held), the Query, the head
   * alongside it.
   */
  async getRunWithMessages(
    runId: string,
    headHint?: HeadHint,
    options?: TurnReadOptions,
  ): Promise<RunWithMessages> {
    let kept = this.transcripts.get(runId);
    const expected = Math.max(options?.messageCount ?? 0, kept.length);
    const toName = expected - kept.length;
    if (headHint && expected > 0 && toName <= TURN_READ_MAX_MESSAGES) {
      const byKey = await readTurnByKey(this.ctx, runId, headHint, kept.length, expected);
      if (byKey) {
        const { run, head } = byKey;
        if (!run) {
          this.transcripts.forget(runId);
          return { run, messages: [], head };
        }
        if (byKey.complete)
          return { ...this.remembered(runId, kept, { run, messages: byKey.messages }), head };
        // More than the hint said (another container committed since), a message in parts, or one missed: the
        // rest by Query after what is held and was read, the head as read here.
        if (byKey.messages.length > 0) {
          this.transcripts.remember(runId, kept, byKey.messages);
          const held = this.transcripts.get(runId);
          // Kept only when the whole prefix fits the cache; otherwise what was read is used as read.
          kept = held.length === kept.length + byKey.messages.length ? held : [...kept, ...byKey.messages];
        }
        return { ...(await this.queryRunWithMessages(runId, kept)), head };
      }
    }
    if (!headHint && kept.length > 0) {
      // The run alone by key: the transcript is held unless another container committed since.
      const run = await getRun(this.ctx, runId);
      if (!run) {
        this.transcripts.forget(runId);
        return { run, messages: [] };
      }
      if (run.messageCount === kept.length) {
        this.scopes.remember(run);
        return { run, messages: [...kept] };
      }
    }
    const [read, head] = await Promise.all([
      this.queryRunWithMessages(runId, kept),
      headHint ? this.getWorkflowHead(headHint.owner, headHint.workflowId) : undefined,
    ]);
    return headHint ? { ...read, head: { value: head } } : read;
  }
  /** The run and its messages after `kept`, in one Query (run-with-messages.ts). */
  private async queryRunWithMessages(
    runId: string,
    kept: readonly TranscriptMessage[],
  ): Promise<RunWithMessages> {
    let read = await getRunWithMessages(this.ctx, runId, kept.length);
    // Fewer messages than kept (never, while messages are only appended): nothing kept is used; read all.
    if (read.run && read.run.messageCount < kept.length) {
      this.transcripts.forget(runId);
      read = await getRunWithMessages(this.ctx, runId);
      return read.run ? this.remembered(runId, [], read) : read;
    }
    if (!read.run) {
      this.transcripts.forget(runId);
      return read;
    }
    return this.remembered(runId, kept, read);
  }
  private remembered(
    runId: string,
    kept: readonly TranscriptMessage[],
    read: RunWithMessages,
  ): RunWithMessages {
    if (read.run) this.scopes.remember(read.run);
    this.transcripts.remember(runId, kept, read.messages);
    return { run: read.run, messages: [...kept, ...read.messages] };
  }
  knownRunScope(runId: string): RunScope | undefined {
    return this.scopes.get(runId);
  }
  /** A saved workflow version (workflow-store.ts), or a delegated job's snapshot as one (job-snapshots.ts). */
  override async getWorkflowVersion(
    owner: string,
    workflowId: string,
    version: number,
  ): Promise<WorkflowVersion | undefined> {
    // A delegated job's run: its "version" is the job's snapshot (job-snapshots.ts).
    if (isGrantWorkflowId(workflowId)) return getJobSnapshot(this.ctx, owner, workflowId, version);
    return super.getWorkflowVersion(owner, workflowId, version);
  }
  /** The live grant of a delegated job's run (the core's `DelegationPort`). */
  liveGrant(run: Run): Promise<LiveDelegation | undefined> {
    return getLiveDelegation(this.ctx, run);
  }
  listMessages(runId: string): Promise<TranscriptMessage[]> {
    return queryPrefixItems(this.ctx, keys.run(runId).pk, prefixes.message).then(assembleMessages);
  }
  /** A graph run with its steps (and ledger rows) in one Query; with `owner`, only that owner's (steps.ts). */
  loadGraphRun(runId: string, options?: { ledger?: boolean; owner?: string }) {
    return loadGraphRun(this.ctx, runId, options);
  }
  /** A graph run's steps after one, as far as a page needs (step-range.ts); the run is the caller's. */
  readStepRange(runId: string, from: Parameters<typeof readStepRange>[2]) {
    return readStepRange(this.ctx, runId, from);
  }
  getResumeToken(runId: string) {
    return getResumeToken(this.ctx, runId);
  }
  putResumeToken(runId: string, token: string, fence?: string) {
    return putResumeToken(this.ctx, runId, token, fence);
  }
  settleResumeToken(runId: string, token: string) {
    return settleResumeToken(this.ctx, runId, token);
  }
  listLedger(runId: string): Promise<LedgerRow[]> {
    return queryPrefix(this.ctx, keys.run(runId).pk, prefixes.ledger, LedgerRowSchema);
  }
  getApproval(approvalId: string) {
    return getApproval(this.ctx, approvalId);
  }
  getApprovalWithRun(approvalId: string, runIdHint?: string, headHint?: HeadHint) {
    return getApprovalWithRun(this.ctx, approvalId, runIdHint, headHint);
  }
  getRunWithApprovals(runId: string, approvalIds: readonly string[]) {
    return getRunWithApprovals(this.ctx, runId, approvalIds);
  }
  async anchorRunHead(run: Run, at: string, options?: { maxAttempts?: number }) {
    const anchor = await anchorRunHead(this.ctx, run, at, options);
    await this.signOwnerHeads(run.owner, at);
    return anchor;
  }
  listOwnerAnchorItems(owner: string) {
    return listOwnerAnchorItems(this.ctx, owner);
  }
  getRunAnchor(owner: string, runId: string) {
    return getRunAnchor(this.ctx, owner, runId);
  }
  /** The owner's workflow changes as stored, for the verifier. */
  listOwnerChangeItems(owner: string) {
    return listOwnerChangeItems(this.ctx, owner);
  }
  /** The owner's signed heads as stored, for the verifier. */
  listSignedHeadItems(owner: string) {
    return listSignedHeadItems(this.ctx, owner);
  }
  /** The audit chains a page at a time, reading about what a page returns (audit-ranges.ts). */
  readonly auditRanges = {
    run: (runId: string, start: AuditRangeStart, bytes: number) =>
      readAuditRange(this.ctx, runId, start, bytes),
    owner: (owner: string, chain: OwnerChain, seq: number, bytes: number) =>
      readOwnerChainRange(this.ctx, owner, chain, seq, bytes),
    signedHeads: (owner: string, from: Parameters<typeof readSignedHeadRange>[2]) =>
      readSignedHeadRange(this.ctx, owner, from),
    newestSignedHead: (owner: string) => readNewestSignedHead(this.ctx, owner),
    hashesAt: (owner: string, seqs: Record<OwnerChain, readonly number[]>) =>
      readOwnerChainHashes(this.ctx, owner, seqs),
  };
  async commit(change: RunChange): Promise<Run> {
    const { next, messageItems } = await commitRunChange(this.ctx, change);
    // Its status as this container last wrote it: a parked run's next turn assumes the head (run-scopes.ts).
    this.scopes.remember(next);
    // The messages it wrote, when they extend the transcript kept (written-messages.ts), from the items the
    // commit stored them as: the next turn here reads its run by key alone.
    const written = change.messages ?? [];
    const kept = this.transcripts.get(next.runId);
    if (written.length > 0 && written[0]!.seq === kept.length)
      this.transcripts.remember(next.runId, kept, writtenMessages(messageItems));
    return next;
  }

  // ---- runs
  createRun(created: NewRun, idempotency?: Idempotency) {
    return createRun(this.ctx, created, idempotency);
  }
  /** Markers of API, schedule and event starts created in `hour` before `createdBefore` (store/pending-runs.ts). */
  listPendingRunMarkers(hour: string, createdBefore: string): Promise<PendingRunMarker[]> {
    return listPendingRunMarkers(this.ctx, hour, createdBefore);
  }
  deletePendingRunMarker(marker: PendingRunMarker): Promise<void> {
    return deletePendingRunMarker(this.ctx, marker);
  }
  listRuns(query: RunListQuery) {
    return listRuns(this.ctx, query);
  }
  /**
   * The run's audit entries as stored (keys removed, either item layout: audit-items.ts), NOT schema-checked: for the verifier, which must be able
   * to name an entry that no longer parses instead of failing the read.
   */
  async listAuditItems(runId: string): Promise<unknown[]> {
    return auditEntriesOf(await queryPrefixItems(this.ctx, keys.run(runId).pk, prefixes.audit));
  }
  /** The run's audit entries in chain order, from items of either layout (audit-items.ts), schema-checked. */
  async listAudit(runId: string): Promise<AuditEntry[]> {
    return parseAuditItems(await queryPrefixItems(this.ctx, keys.run(runId).pk, prefixes.audit));
  }
  listApprovals(query: Parameters<typeof listApprovals>[1]) {
    return listApprovals(this.ctx, query);
  }
  /** One page of the run's ledger rows (the receipts listing). */
  listLedgerPage(query: Parameters<typeof listLedgerPage>[1]) {
    return listLedgerPage(this.ctx, query);
  }
  /** The run's messages from `from.seq` on, as far as a transcript page needs (message-range.ts). */
  readMessageRange(runId: string, from: Parameters<typeof readMessageRange>[2]) {
    return readMessageRange(this.ctx, runId, from);
  }
  getHumanTask(taskId: string) {
    return getHumanTask(this.ctx, taskId);
  }
  listRunHumanTasks(runId: string) {
    return listRunHumanTasks(this.ctx, runId);
  }
  listOwnerHumanTasks(query: Parameters<typeof listOwnerHumanTasks>[1]) {
    return listOwnerHumanTasks(this.ctx, query);
  }

  // ---- per-day spend (read side; writes go through commit)
  async getDaySpend(owner: string, workflowId: string, day: string): Promise<number> {
    return (await this.getDaySpendDetail(owner, workflowId, day)).totalUsd;
  }
  getDaySpendDetail(owner: string, workflowId: string, day: string): Promise<DaySpend> {
    return this.spendCounter(keys.daySpend(owner, workflowId, day));
  }
  /** A graph run's spend counter: its child runs together (store/day-spend-item.ts). */
  getGraphSpendDetail(graphRunId: string): Promise<DaySpend> {
    return this.spendCounter(keys.graphSpend(graphRunId));
  }
  private async spendCounter(Key: Record<string, string>): Promise<DaySpend> {
    const response = await this.ctx.doc.send(
      new GetCommand({ TableName: this.ctx.table, Key, ConsistentRead: true }),
    );
    return {
      totalUsd: Number(response.Item?.spentUsd ?? 0),
      reservedUsd: Number(response.Item?.reservedUsd ?? 0),
    };
  }

  // ---- run notes (NotesPort: the built-in notes_put / notes_append actions)
  async put(runId: string, name: string, value: string): Promise<void> {
    await this.ctx.doc.send(
      new PutCommand({
        TableName: this.ctx.table,
        Item: { ...keys.note(runId, name), name, lines: [value] },
      }),
    );
  }
  /**
   * A note is one item, so its lines together stay under DynamoDB's 400 KB item limit
   * (https://docs.aws.amazon.com/amazondynamodb/latest/developerguide/Constraints.html#limits-items): a long run
   * appending to one note reaches it (about 200 lines of 2,000 characters, 68 of 2,000 three-byte ones). The
   * append DynamoDB then refuses is a `NoteFullError` naming the note, not its bare ValidationException.
   */
  async append(runId: string, name: string, line: string): Promise<number> {
    try {
      const response = await this.ctx.doc.send(
        new UpdateCommand({
          TableName: this.ctx.table,
          Key: keys.note(runId, name),
          UpdateExpression: 'SET #name = :name, #lines = list_append(if_not_exists(#lines, :empty), :line)',
          ExpressionAttributeNames: { '#name': 'name', '#lines': 'lines' },
          ExpressionAttributeValues: { ':name': name, ':line': [line], ':empty': [] },
          ReturnValues: 'ALL_NEW',
        }),
      );
      return (response.Attributes?.lines as unknown[] | undefined)?.length ?? 0;
    } catch (error) {
      if ((error as Error)?.name === 'ValidationException' && /item size/i.test((error as Error).message))
        throw new NoteFullError(name, { cause: error });
      throw error;
    }
  }
  /** The lines of one run note, or undefined if it was never written. */
  async getNoteLines(runId: string, name: string): Promise<string[] | undefined> {
    const response = await this.ctx.doc.send(
      new GetCommand({ TableName: this.ctx.table, Key: keys.note(runId, name), ConsistentRead: true }),
    );
    return response.Item ? (response.Item.lines as string[]) : undefined;
  }
  listNotes(runId: string): Promise<Note[]> {
    return queryPrefix(this.ctx, keys.run(runId).pk, prefixes.note, NoteSchema);
  }
}

/** An append to a note already as large as one item holds (see `append`): nothing was appended. */
export class NoteFullError extends Error {
  constructor(name: string, options?: ErrorOptions) {
    super(
      `note '${name}' is full: a note holds at most 400 KB; nothing was appended. Replace it with notes_put, or append to another note`,
      options,
    );
    this.name = 'NoteFullError';
  }
}
