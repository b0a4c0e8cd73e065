/**
 * The graph (SOP) workflow definition: `kind: graph`, nodes and edges. This module holds the shapes only; the
 * graph-level validation (one start, no cycles, reachability, conditions, templates) is in `validate.ts`.
 * Field reference: docs/graph-workflows.md.
 */

import { EngineNameSchema, EXTERNAL_MODES } from '../external/definition.ts';
import { BudgetSchema } from '../schemas/budget.ts';
import { ActionNameSchema, WorkflowNameSchema } from '../schemas/common.ts';
import { ConnectorSchema } from '../schemas/connector.ts';
import { CredRefsSchema } from '../schemas/credentials.ts';
import { DestinationSchema } from '../schemas/destination.ts';
import {
  ApprovalDefaultsSchema,
  ApprovalTimeoutSchema,
  ApproverSchema,
  GATE_MODES,
  GateSchema,
} from '../schemas/gate.ts';
import { ModelSpecSchema } from '../schemas/model-spec.ts';
import { TriggerSchema } from '../schemas/trigger.ts';
import { CheckedTriggerSchema } from '../schemas/trigger-checks.ts';
import * as z from '../zod.ts';
import { validateGraph } from './validate.ts';

/** Node ids are identifiers so that conditions and templates can name them: `steps.triage.output.amount`. */
export const NodeIdSchema = z
  .string()
  .check(
    z.regex(
      /^[a-z][a-z0-9_]{0,39}$/,
      'must be lower snake case: a letter, then letters, digits or _ (at most 40)',
    ),
  );

/** A JSON Schema object (draft 2020-12), checked at save time by the graph validation. */
export const JsonSchemaObjectSchema = z
  .record(z.string(), z.unknown())
  .check(z.describe('A JSON Schema (draft 2020-12).'));

/** A text with `{{ expression }}` placeholders; each expression is JSONata over the run data. */
export const TemplateSchema = z.string().check(z.minLength(1), z.maxLength(20_000));

const GatesSchema = z._default(z.record(z.string(), z.union([z.enum(GATE_MODES), GateSchema])), {});

export const StartNodeSchema = z.strictObject({ id: NodeIdSchema, type: z.literal('start') });
export const EndNodeSchema = z.strictObject({ id: NodeIdSchema, type: z.literal('end') });

export const AgentTaskNodeSchema = z.strictObject({
  id: NodeIdSchema,
  type: z.literal('agent_task'),
  model: ModelSpecSchema,
  system: z
    .string()
    .check(z.minLength(1), z.maxLength(100_000), z.describe('The system prompt of the child agent run.')),
  prompt: TemplateSchema.check(z.describe('The task, templated over the run data: {{ input.message }}.')),
  allowedActions: z._default(z.array(ActionNameSchema).check(z.maxLength(64)), []),
  gates: GatesSchema,
  limits: z._default(
    z.strictObject({
      maxTurns: z._default(z.number().check(z.int(), z.gte(1), z.lte(200)), 10),
      maxUsd: z.optional(z.number().check(z.positive(), z.lte(1000))),
    }),
    { maxTurns: 10 },
  ),
  output: z
    .optional(JsonSchemaObjectSchema)
    .check(z.describe('A JSON Schema for a structured output that later nodes and conditions may read.')),
});

export const ServiceTaskNodeSchema = z.strictObject({
  id: NodeIdSchema,
  type: z.literal('service_task'),
  action: ActionNameSchema.check(z.describe('One action: a built-in or a connector of this workflow.')),
  args: z
    ._default(z.record(z.string(), z.unknown()), {})
    .check(
      z.describe(
        'Arguments; string values may be templates. A value that is one whole {{ … }} keeps its type.',
      ),
    ),
});

export const HumanTaskNodeSchema = z.strictObject({
  id: NodeIdSchema,
  type: z.literal('human_task'),
  title: z.string().check(z.minLength(1), z.maxLength(200)),
  assignees: z.array(ApproverSchema).check(z.minLength(1), z.maxLength(20)),
  form: JsonSchemaObjectSchema.check(
    z.describe('The form as a JSON Schema object: text, number, boolean, enum, long text.'),
  ),
  context: z
    ._default(z.array(z.string().check(z.minLength(1), z.maxLength(500))).check(z.maxLength(20)), [])
    .check(
      z.describe('JSONata paths over the run data shown to the assignee, e.g. steps.triage.output.amount.'),
    ),
  timeoutSeconds: ApprovalTimeoutSchema,
  onTimeout: z._default(
    z.discriminatedUnion('action', [
      z.strictObject({ action: z.literal('fail') }),
      z
        .strictObject({ action: z.literal('continue'), output: z.record(z.string(), z.unknown()) })
        .check(z.describe('Continue with this output; conditions may also read steps.<id>.timedOut.')),
    ]),
    { action: 'fail' },
  ),
});

/**
 * Work handed to a registered external engine as a child run of the external kind (docs/graph-workflows.md,
 * "external_task"): the payload templated from the run data, the engine's mode, an optional JSON Schema for
 * its structured result, and how long the step may take. Whether the deployment enables the engine is
 * checked when the workflow is saved, as for `kind: external` workflows.
 */
export const ExternalTaskNodeSchema = z.strictObject({
  id: NodeIdSchema,
  type: z.literal('external_task'),
  engine: EngineNameSchema.check(
    z.describe('A registered engine this deployment enables, e.g. http-runtime.'),
  ),
  mode: z
    ._default(z.enum(EXTERNAL_MODES), 'off')
    .check(
      z.describe(
        'off: the step fails without dispatching; shadow: record what would be sent, send nothing; report_only: run it, record the result, pass no output on; live: the result is the output.',
      ),
    ),
  payload: z
    ._default(z.record(z.string(), z.unknown()), {})
    .check(
      z.describe(
        'Sent to the engine as is; string values may be templates. A value that is one whole {{ … }} keeps its type.',
      ),
    ),
  output: z
    .optional(JsonSchemaObjectSchema)
    .check(z.describe("A JSON Schema the engine's result (JSON) must match; it becomes the step's output.")),
  resultArtifact: z
    .optional(z.string().check(z.minLength(1), z.maxLength(500)))
    .check(z.describe("Path of the engine's artifact that is the result; verified before use.")),
  credential: z
    .optional(z.string().check(z.regex(/^[a-z][a-z0-9_]{0,63}$/)))
    .check(z.describe('A credRefs slot whose secret the adapter injects into its requests.')),
  timeoutSeconds: z
    ._default(z.number().check(z.int(), z.gte(60), z.lte(7 * 24 * 3600)), 3600)
    .check(
      z.describe("The child run's deadline: then the engine's execution is cancelled and the step fails."),
    ),
});

export const GraphNodeSchema = z.discriminatedUnion('type', [
  StartNodeSchema,
  EndNodeSchema,
  AgentTaskNodeSchema,
  ServiceTaskNodeSchema,
  HumanTaskNodeSchema,
  ExternalTaskNodeSchema,
]);
export type GraphNode = z.output<typeof GraphNodeSchema>;
export type GraphNodeType = GraphNode['type'];

export const GraphEdgeSchema = z.strictObject({
  from: NodeIdSchema,
  to: NodeIdSchema,
  when: z
    .optional(z.string().check(z.minLength(1), z.maxLength(2000)))
    .check(
      z.describe('A JSONata condition over the run data (input and earlier steps), never over free text.'),
    ),
});
export type GraphEdge = z.output<typeof GraphEdgeSchema>;

export const GraphDefinitionShapeSchema = z.strictObject({
  $schema: z
    .optional(z.string())
    .check(z.describe('Editor hint: the JSON Schema of this file. Ignored by the runtime.')),
  kind: z.literal('graph'),
  name: WorkflowNameSchema,
  description: z.optional(z.string().check(z.maxLength(2000))),
  input: z.optional(JsonSchemaObjectSchema).check(z.describe('A JSON Schema of the start input.')),
  nodes: z.array(GraphNodeSchema).check(z.minLength(2), z.maxLength(100)),
  edges: z.array(GraphEdgeSchema).check(z.maxLength(400)),
  connectors: z._default(z.record(ActionNameSchema, ConnectorSchema), {}),
  gates: GatesSchema.check(z.describe('Gates of service_task actions; agent_task nodes carry their own.')),
  approvals: z.optional(ApprovalDefaultsSchema),
  trigger: TriggerSchema,
  destination: z._default(DestinationSchema, { type: 'stored' }),
  budget: BudgetSchema,
  credRefs: z._default(CredRefsSchema, {}),
});

/** The fields of a graph definition, parsed, before the graph-level checks. */
export type GraphDefinitionShape = z.output<typeof GraphDefinitionShapeSchema>;

const savedGraphDefinitionSchema = () =>
  z.extend(GraphDefinitionShapeSchema, { trigger: CheckedTriggerSchema }).check(z.superRefine(validateGraph));

/**
 * A graph workflow definition being saved: the fields with the trigger's save-time checks
 * (schemas/trigger-checks.ts), then the graph-level validation (validate.ts). In zod 4 a `.superRefine` keeps
 * the schema a ZodObject, so it stays a member of the `kind` discriminated union.
 */
export const GraphDefinitionSchema = /* @__PURE__ */ savedGraphDefinitionSchema();
export type GraphDefinition = z.output<typeof GraphDefinitionSchema>;
