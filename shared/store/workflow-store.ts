/**
 * The workflow part of the store: workflow heads and versions (drafts, publishing, enable/disable/delete),
 * each change audited on the owner's workflow-change chain and its head signed, and the trigger index of
 * their schedules and event patterns. Same table and keys as the rest of the store (keys.ts); it knows no
 * runs, jobs, graph steps, approvals or human tasks.
 *
 * `DynamoStore` (dynamo-store.ts) is this store plus those. The WorkflowWrite function uses only this one
 * (shared/runtime/aws/workflow-store.ts), so its bundle carries none of the run and job records
 * (docs/deploy.md, "WorkflowWrite's size"), and the type checker keeps its routes to these methods
 * (`WorkflowWriteDeps`, shared/api/routes/workflow-versions.ts).
 */

import type { AnchorSigner } from '../audit/index.ts';
import { cutText } from '../core/byte-caps.ts';
import type { WorkflowHead, WorkflowVersion } from '../schemas/workflow-record.ts';
import { createStoreContext, type StoreConfig, type StoreContext } from './client.ts';
import type { StoreFaults } from './faults.ts';
import { UNATTRIBUTED } from './owner-changes.ts';
import { signOwnerHeads } from './signed-heads.ts';
import {
  deleteTriggerIndex,
  listTriggerIndex,
  putTriggerIndex,
  type TriggerIndexEntry,
  type TriggerIndexType,
} from './trigger-index.ts';
import { VersionCache } from './version-cache.ts';
import { publishDraft, putDraft, replaceDraft } from './workflow-drafts.ts';
import {
  getWorkflowHead,
  getWorkflowVersion,
  listWorkflowHeads,
  listWorkflowVersions,
  putHead,
  putNewWorkflow,
  putNextVersion,
} from './workflows.ts';

/**
 * Store options: with a `signer`, every anchor and workflow change is followed by a signed head; `faults` counts
 * what is logged instead of thrown after a commit (faults.ts; default: logged only).
 */
export type StoreOptions = { signer?: AnchorSigner; faults?: StoreFaults };

export class WorkflowStore {
  readonly ctx: StoreContext;
  readonly #signer: AnchorSigner | undefined;
  /**
   * Saved versions are immutable: read once per container (version-cache.ts). A TS-private field, not `#`:
   * tests and observers wrap the store in proxies that call its methods with the proxy as `this`.
   */
  private readonly versions = new VersionCache();

  /** Where faults logged after a commit are counted (faults.ts). */
  readonly faults: StoreFaults;
  constructor(config: StoreConfig | StoreContext, options: StoreOptions = {}) {
    this.ctx = 'doc' in config ? config : createStoreContext(config);
    this.#signer = options.signer;
    this.faults = options.faults ?? {};
  }

  /** Signs the owner's current chain heads (no-op without a signer, or when these heads are signed). */
  async signOwnerHeads(owner: string, at: string) {
    return this.#signer ? signOwnerHeads(this.ctx, this.#signer, owner, at) : undefined;
  }

  /**
   * Signs after a workflow change committed. A signing fault (KMS refused, the signed head's Put failed) does
   * not undo the change, so it is not the change's failure either: it is logged and counted (`faults`), and the
   * change stays an unsigned tail of the chain that the verifier reports as such (verify-signed.ts) until the owner's next
   * signing covers it (signed-heads.ts signs the current heads, whatever they are). The caller goes on to
   * sync triggers and answers the committed write as done.
   */
  private async signAfterCommit(owner: string, at: string): Promise<void> {
    try {
      await this.signOwnerHeads(owner, at);
    } catch (error) {
      const { name, message } = error instanceof Error ? error : { name: 'Error', message: String(error) };
      console.error(
        JSON.stringify({
          level: 'ERROR',
          message: 'workflow change committed; signing its owner heads failed (the next signing covers it)',
          owner,
          error: { name, message: cutText(message, 500) },
        }),
      );
      this.faults.workflowSigningFault?.();
    }
  }

  getWorkflowHead(owner: string, workflowId: string): Promise<WorkflowHead | undefined> {
    return getWorkflowHead(this.ctx, owner, workflowId);
  }
  /** One of the owner's saved versions (a `wf_…` workflow's; a delegated job's snapshot is DynamoStore's). */
  async getWorkflowVersion(
    owner: string,
    workflowId: string,
    version: number,
  ): Promise<WorkflowVersion | undefined> {
    const cached = this.versions.get(owner, workflowId, version);
    if (cached) return cached;
    const found = await getWorkflowVersion(this.ctx, owner, workflowId, version);
    // Only a published version is immutable; a draft is replaced in place and then published (workflow-drafts.ts).
    if (found?.status === 'published') this.versions.set(owner, workflowId, version, found);
    return found;
  }

  // ---- changes (each is audited in its own transaction; the author of a version is `version.author`).
  // A head write is fenced on `previous` as read (its `rev`, workflows.ts) and returns the head as written.
  async createWorkflow(head: WorkflowHead, version: WorkflowVersion) {
    await putNewWorkflow(this.ctx, head, version);
    await this.signAfterCommit(head.owner, version.createdAt);
  }
  async addWorkflowVersion(
    previous: WorkflowHead,
    head: WorkflowHead,
    version: WorkflowVersion,
  ): Promise<WorkflowHead> {
    const written = await putNextVersion(this.ctx, previous, head, version);
    await this.signAfterCommit(head.owner, version.createdAt);
    return written;
  }
  /** Saves a new draft (`head.draftVersion`), audited with `author`. */
  async saveWorkflowDraft(
    previous: WorkflowHead,
    head: WorkflowHead,
    draft: WorkflowVersion,
    author: string,
  ): Promise<WorkflowHead> {
    const written = await putDraft(this.ctx, previous, head, draft, author);
    await this.signAfterCommit(head.owner, draft.createdAt);
    return written;
  }
  /** Replaces the open draft in place, fenced on the draft that was read. */
  async replaceWorkflowDraft(
    head: WorkflowHead,
    previous: WorkflowVersion,
    draft: WorkflowVersion,
    author: string,
  ) {
    await replaceDraft(this.ctx, head, previous, draft, author);
    await this.signAfterCommit(head.owner, draft.updatedAt ?? draft.createdAt);
  }
  /** Publishes the open draft: immutable from now on, and the head's latest version. */
  async publishWorkflowDraft(
    previous: WorkflowHead,
    head: WorkflowHead,
    draft: WorkflowVersion,
    published: WorkflowVersion,
  ): Promise<WorkflowHead> {
    const written = await publishDraft(this.ctx, previous, head, draft, published);
    await this.signAfterCommit(head.owner, head.updatedAt);
    return written;
  }
  /** Enable, disable or delete (`releaseName`), audited with `author` (the authenticated principal). */
  async updateWorkflowHead(
    previous: WorkflowHead,
    head: WorkflowHead,
    releaseName = false,
    author = UNATTRIBUTED,
  ): Promise<WorkflowHead> {
    const written = await putHead(this.ctx, previous, head, releaseName, author);
    await this.signAfterCommit(head.owner, head.updatedAt);
    return written;
  }
  listWorkflows(owner: string, page?: { limit?: number; nextToken?: string }) {
    return listWorkflowHeads(this.ctx, owner, page);
  }
  listWorkflowVersions(owner: string, workflowId: string) {
    return listWorkflowVersions(this.ctx, owner, workflowId);
  }

  // ---- trigger index (schedules and event patterns across owners, for the local stack)
  /**
   * Indexes an enabled workflow's schedule or event trigger (replacing its previous entry); with `headRev`,
   * only while the head is at that revision (trigger-index.ts).
   */
  putTriggerIndex(entry: TriggerIndexEntry, headRev?: number): Promise<void> {
    return putTriggerIndex(this.ctx, entry, headRev);
  }
  /** Removes a workflow from the trigger index; with `headRev`, only while the head is at that revision. */
  deleteTriggerIndex(owner: string, workflowId: string, headRev?: number): Promise<void> {
    return deleteTriggerIndex(this.ctx, owner, workflowId, headRev);
  }
  /** Every indexed workflow with a trigger of this type, across owners. */
  listTriggerIndex(type: TriggerIndexType): Promise<TriggerIndexEntry[]> {
    return listTriggerIndex(this.ctx, type);
  }
}
