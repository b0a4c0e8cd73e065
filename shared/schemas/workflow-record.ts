/**
 * Stored workflows: a mutable head (enabled flag, latest published version, open draft) and numbered versions.
 * A version is a draft (replaceable in place) until published; a published version is immutable.
 */
import * as z from '../zod.ts';
import { kindOf, StoredWorkflowDefinitionSchema, WorkflowKindError } from './any-workflow.ts';
import { IsoTimeSchema, OwnerIdSchema, SCHEMA_VERSION } from './common.ts';
import type { WorkflowDefinition } from './workflow.ts';

export const WorkflowIdSchema = z
  .string()
  .check(z.regex(/^wf_[A-Za-z0-9]{6,40}$/, 'must be a workflow id (wf_…)'));

/** The mutable head of a workflow: the live policy every turn checks. */
export const WorkflowHeadSchema = z.object({
  schemaVersion: z.literal(SCHEMA_VERSION),
  owner: OwnerIdSchema,
  workflowId: WorkflowIdSchema,
  name: z.string(),
  enabled: z.boolean(),
  deleted: z._default(z.boolean(), false),
  /** The latest published version: runs start on it and triggers follow it. */
  latestVersion: z.number().check(z.int(), z.positive()),
  /** The open draft (always `latestVersion + 1`), if any; at most one per workflow. Absent on older heads. */
  draftVersion: z.optional(z.number().check(z.int(), z.positive())),
  /**
   * The head's revision: 1 when created, one more on every write of the head (shared/store/workflows.ts,
   * workflow-drafts.ts), each write conditioned on the revision it read. Absent on heads stored before it
   * existed, which count as revision 0.
   */
  rev: z.optional(z.number().check(z.int(), z.nonnegative())),
  createdAt: IsoTimeSchema,
  updatedAt: IsoTimeSchema,
});
export type WorkflowHead = z.infer<typeof WorkflowHeadSchema>;

export const VERSION_STATUSES = ['draft', 'published'] as const;
export type VersionStatus = (typeof VERSION_STATUSES)[number];

/**
 * One numbered version of a workflow definition. Runs are bound to a published version. A version stored
 * before drafts existed has no status and is published.
 */
export const WorkflowVersionSchema = z.object({
  schemaVersion: z.literal(SCHEMA_VERSION),
  owner: OwnerIdSchema,
  workflowId: WorkflowIdSchema,
  version: z.number().check(z.int(), z.positive()),
  definition: StoredWorkflowDefinitionSchema,
  createdAt: IsoTimeSchema,
  /**
   * Who saved this version: the authenticated principal (IAM principal ARN, JWT subject, local API key
   * principal). Absent on versions saved before authors were recorded.
   */
  author: z.optional(z.string().check(z.minLength(1), z.maxLength(512))),
  status: z._default(z.enum(VERSION_STATUSES), 'published'),
  /** When a draft was last replaced (the fence of the next replace or publish). */
  updatedAt: z.optional(IsoTimeSchema),
  /** When and by whom a draft was published; absent on versions published when saved. */
  publishedAt: z.optional(IsoTimeSchema),
  publishedBy: z.optional(z.string().check(z.minLength(1), z.maxLength(512))),
});
export type WorkflowVersion = z.infer<typeof WorkflowVersionSchema>;

/** A version of an agent workflow. */
export type AgentWorkflowVersion = Omit<WorkflowVersion, 'definition'> & { definition: WorkflowDefinition };

export function isAgentVersion(version: WorkflowVersion): version is AgentWorkflowVersion {
  return kindOf(version.definition) === 'agent';
}

/** The version as an agent workflow version, or a `WorkflowKindError`. */
export function asAgentVersion(version: WorkflowVersion): AgentWorkflowVersion {
  if (!isAgentVersion(version)) throw new WorkflowKindError('agent', kindOf(version.definition));
  return version;
}

/** A new workflow's head and its version 1, as they are stored together. */
export function newWorkflowRecords(args: {
  owner: string;
  workflowId: string;
  definition: WorkflowVersion['definition'];
  now: string;
  /** The authenticated principal creating the workflow. */
  author?: string;
}): { head: WorkflowHead; version: WorkflowVersion } {
  const { owner, workflowId, definition, now, author } = args;
  return {
    head: {
      schemaVersion: 1,
      owner,
      workflowId,
      name: definition.name,
      enabled: true,
      deleted: false,
      latestVersion: 1,
      rev: 1,
      createdAt: now,
      updatedAt: now,
    },
    version: {
      schemaVersion: 1,
      owner,
      workflowId,
      version: 1,
      definition,
      createdAt: now,
      ...(author === undefined ? {} : { author }),
      status: 'published',
    },
  };
}
