/** Stored workflows: a mutable head (enabled flag, latest version) and immutable numbered versions. */
import { z } from 'zod';
import { IsoTimeSchema, OwnerIdSchema, SCHEMA_VERSION } from './common.ts';
import { WorkflowDefinitionSchema } from './workflow.ts';

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
  definition: WorkflowDefinitionSchema,
  createdAt: IsoTimeSchema,
});
export type WorkflowVersion = z.infer<typeof WorkflowVersionSchema>;
