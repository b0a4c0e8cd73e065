/**
 * Every kind of workflow definition, told apart by `kind`: absent or `agent` (a Claude tool loop,
 * workflow.ts), `graph` (a fixed SOP, shared/graph/), `external` (work handed to an engine, shared/external/). Stored versions, the API and workflow files take this
 * union; code that runs one kind narrows with `asAgentVersion` and friends, and refuses the others.
 */

import { ExternalDefinitionSchema, ExternalDefinitionShapeSchema } from '../external/definition.ts';
import { GraphDefinitionSchema, GraphDefinitionShapeSchema } from '../graph/definition.ts';
import * as z from '../zod.ts';
import { AgentDefinitionShapeSchema, type WorkflowDefinition, WorkflowDefinitionSchema } from './workflow.ts';

export const WORKFLOW_KINDS = ['agent', 'graph', 'external'] as const;
export type WorkflowKind = (typeof WORKFLOW_KINDS)[number];

/** A definition being saved (API body, workflow file): every kind with all of its save-time checks. */
export const AnyWorkflowDefinitionSchema = /* @__PURE__ */ z.discriminatedUnion('kind', [
  WorkflowDefinitionSchema,
  GraphDefinitionSchema,
  ExternalDefinitionSchema,
]);

/**
 * A definition read back from a stored version. It passed AnyWorkflowDefinitionSchema when it was saved, so
 * its shape is parsed but the save-time checks are not run again (a graph's graph-level validation with
 * JSONata and Ajv, a trigger's expression, time zone and pattern checks): a read costs no compile, a rule
 * added later never makes an old version unreadable, and functions that only read versions bundle none of
 * JSONata, Ajv, croner or the pattern validator (the `@__PURE__` schemas let esbuild drop what they do not use).
 */
export const StoredWorkflowDefinitionSchema = z.discriminatedUnion('kind', [
  AgentDefinitionShapeSchema,
  GraphDefinitionShapeSchema,
  ExternalDefinitionShapeSchema,
]);
export type AnyWorkflowDefinition = z.output<typeof AnyWorkflowDefinitionSchema>;
export type AnyWorkflowDefinitionInput = z.input<typeof AnyWorkflowDefinitionSchema>;

/** The kind of a definition; an absent `kind` is an agent workflow (every definition saved before kinds). */
export function kindOf(definition: AnyWorkflowDefinition): WorkflowKind {
  return definition.kind ?? 'agent';
}

export function isAgentDefinition(definition: AnyWorkflowDefinition): definition is WorkflowDefinition {
  return kindOf(definition) === 'agent';
}

/** Raised when code that runs one kind of workflow is handed another: never run a graph as an agent loop. */
export class WorkflowKindError extends Error {
  override readonly name = 'WorkflowKindError';
  readonly expected: string;
  readonly actual: string;
  constructor(expected: string, actual: string) {
    super(`expected a workflow of kind '${expected}', found kind '${actual}'`);
    this.expected = expected;
    this.actual = actual;
  }
}

/** The definition as an agent definition, or a `WorkflowKindError`. */
export function asAgentDefinition(definition: AnyWorkflowDefinition): WorkflowDefinition {
  if (!isAgentDefinition(definition)) throw new WorkflowKindError('agent', kindOf(definition));
  return definition;
}
