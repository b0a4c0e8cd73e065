/** Stored workflows: a mutable head (enabled flag, latest version) and immutable numbered versions. */
import * as z from 'zod';
import { AnyWorkflowDefinitionSchema, kindOf, WorkflowKindError } from './any-workflow.ts';
import { IsoTimeSchema, OwnerIdSchema, SCHEMA_VERSION } from './common.ts';
import type { WorkflowDefinition } from './workflow.ts';

export const WorkflowIdSchema = z.string().regex(/^wf_[A-Za-z0-9]{6,40}$/, 'must be a workflow id (wf_…)');

/** The mutable head of a workflow: the live policy every turn checks. */
export const WorkflowHeadSchema = z.object({
  schemaVersion: z.literal(SCHEMA_VERSION),
  owner: OwnerIdSchema,
  workflowId: WorkflowIdSchema,
  name: z.string(),
  enabled: z.boolean(),
  deleted: z.boolean().default(false),
  latestVersion: z.number().int().positive(),
  createdAt: IsoTimeSchema,
  updatedAt: IsoTimeSchema,
});
export type WorkflowHead = z.infer<typeof WorkflowHeadSchema>;

/** One immutable, numbered version of a workflow definition. Runs are bound to a version. */
export const WorkflowVersionSchema = z.object({
  schemaVersion: z.literal(SCHEMA_VERSION),
  owner: OwnerIdSchema,
  workflowId: WorkflowIdSchema,
  version: z.number().int().positive(),
  definition: AnyWorkflowDefinitionSchema,
  createdAt: IsoTimeSchema,
  /**
   * Who saved this version: the authenticated principal (IAM principal ARN, JWT subject, local API key
   * principal). Absent on versions saved before authors were recorded.
   */
  author: z.string().min(1).max(512).optional(),
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
    },
  };
}
