/**
 * Every kind of workflow definition, told apart by `kind`: absent or `agent` (a Claude tool loop,
 * workflow.ts), `graph` (a fixed SOP, shared/graph/), `external` (work handed to an engine, shared/external/). Stored versions, the API and workflow files take this
 * union; code that runs one kind narrows with `asAgentVersion` and friends, and refuses the others.
 */
import { z } from 'zod';
import { ExternalDefinitionSchema } from '../external/definition.ts';
import { GraphDefinitionSchema } from '../graph/definition.ts';
import { type WorkflowDefinition, WorkflowDefinitionSchema } from './workflow.ts';

export const WORKFLOW_KINDS = ['agent', 'graph', 'external'] as const;
export type WorkflowKind = (typeof WORKFLOW_KINDS)[number];

export const AnyWorkflowDefinitionSchema = z.discriminatedUnion('kind', [
  WorkflowDefinitionSchema,
  GraphDefinitionSchema,
  ExternalDefinitionSchema,
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
