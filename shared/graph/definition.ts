/**
 * The graph (SOP) workflow definition: `kind: graph`, nodes and edges. This module holds the shapes only; the
 * graph-level validation (one start, no cycles, reachability, conditions, templates) is in `validate.ts`.
 * Field reference: docs/graph-workflows.md.
 */
import * as z from 'zod';
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
import { validateGraph } from './validate.ts';

/** Node ids are identifiers so that conditions and templates can name them: `steps.triage.output.amount`. */
export const NodeIdSchema = z
  .string()
  .regex(
    /^[a-z][a-z0-9_]{0,39}$/,
    'must be lower snake case: a letter, then letters, digits or _ (at most 40)',
  );

/** A JSON Schema object (draft 2020-12), checked at save time by the graph validation. */
export const JsonSchemaObjectSchema = z
  .record(z.string(), z.unknown())
  .describe('A JSON Schema (draft 2020-12).');

/** A text with `{{ expression }}` placeholders; each expression is JSONata over the run data. */
export const TemplateSchema = z.string().min(1).max(20_000);

const GatesSchema = z.record(z.string(), z.union([z.enum(GATE_MODES), GateSchema])).default({});

export const StartNodeSchema = z.object({ id: NodeIdSchema, type: z.literal('start') }).strict();
export const EndNodeSchema = z.object({ id: NodeIdSchema, type: z.literal('end') }).strict();

export const AgentTaskNodeSchema = z
  .object({
    id: NodeIdSchema,
    type: z.literal('agent_task'),
    model: ModelSpecSchema,
    system: z.string().min(1).max(100_000).describe('The system prompt of the child agent run.'),
    prompt: TemplateSchema.describe('The task, templated over the run data: {{ input.message }}.'),
    allowedActions: z.array(ActionNameSchema).max(64).default([]),
    gates: GatesSchema,
    limits: z
      .object({
        maxTurns: z.number().int().min(1).max(200).default(10),
        maxUsd: z.number().positive().max(1000).optional(),
      })
      .strict()
      .default({ maxTurns: 10 }),
    output: JsonSchemaObjectSchema.optional().describe(
      'A JSON Schema for a structured output that later nodes and conditions may read.',
    ),
  })
  .strict();

export const ServiceTaskNodeSchema = z
  .object({
    id: NodeIdSchema,
    type: z.literal('service_task'),
    action: ActionNameSchema.describe('One action: a built-in or a connector of this workflow.'),
    args: z
      .record(z.string(), z.unknown())
      .default({})
      .describe(
        'Arguments; string values may be templates. A value that is one whole {{ … }} keeps its type.',
      ),
  })
  .strict();

export const HumanTaskNodeSchema = z
  .object({
    id: NodeIdSchema,
    type: z.literal('human_task'),
    title: z.string().min(1).max(200),
    assignees: z.array(ApproverSchema).min(1).max(20),
    form: JsonSchemaObjectSchema.describe(
      'The form as a JSON Schema object: text, number, boolean, enum, long text.',
    ),
    context: z
      .array(z.string().min(1).max(500))
      .max(20)
      .default([])
      .describe('JSONata paths over the run data shown to the assignee, e.g. steps.triage.output.amount.'),
    timeoutSeconds: ApprovalTimeoutSchema,
    onTimeout: z
      .discriminatedUnion('action', [
        z.object({ action: z.literal('fail') }).strict(),
        z
          .object({ action: z.literal('continue'), output: z.record(z.string(), z.unknown()) })
          .strict()
          .describe('Continue with this output; conditions may also read steps.<id>.timedOut.'),
      ])
      .default({ action: 'fail' }),
  })
  .strict();

/**
 * Work handed to a registered external engine as a child run of the external kind (docs/graph-workflows.md,
 * "external_task"): the payload templated from the run data, the engine's mode, an optional JSON Schema for
 * its structured result, and how long the step may take. Whether the deployment enables the engine is
 * checked when the workflow is saved, as for `kind: external` workflows.
 */
export const ExternalTaskNodeSchema = z
  .object({
    id: NodeIdSchema,
    type: z.literal('external_task'),
    engine: EngineNameSchema.describe('A registered engine this deployment enables, e.g. http-runtime.'),
    mode: z
      .enum(EXTERNAL_MODES)
      .default('off')
      .describe(
        'off: the step fails without dispatching; shadow: record what would be sent, send nothing; report_only: run it, record the result, pass no output on; live: the result is the output.',
      ),
    payload: z
      .record(z.string(), z.unknown())
      .default({})
      .describe(
        'Sent to the engine as is; string values may be templates. A value that is one whole {{ … }} keeps its type.',
      ),
    output: JsonSchemaObjectSchema.optional().describe(
      "A JSON Schema the engine's result (JSON) must match; it becomes the step's output.",
    ),
    resultArtifact: z
      .string()
      .min(1)
      .max(500)
      .optional()
      .describe("Path of the engine's artifact that is the result; verified before use."),
    credential: z
      .string()
      .regex(/^[a-z][a-z0-9_]{0,63}$/)
      .optional()
      .describe('A credRefs slot whose secret the adapter injects into its requests.'),
    timeoutSeconds: z
      .number()
      .int()
      .min(60)
      .max(7 * 24 * 3600)
      .default(3600)
      .describe("The child run's deadline: then the engine's execution is cancelled and the step fails."),
  })
  .strict();

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

export const GraphEdgeSchema = z
  .object({
    from: NodeIdSchema,
    to: NodeIdSchema,
    when: z
      .string()
      .min(1)
      .max(2000)
      .optional()
      .describe('A JSONata condition over the run data (input and earlier steps), never over free text.'),
  })
  .strict();
export type GraphEdge = z.output<typeof GraphEdgeSchema>;

export const GraphDefinitionShapeSchema = z
  .object({
    $schema: z
      .string()
      .optional()
      .describe('Editor hint: the JSON Schema of this file. Ignored by the runtime.'),
    kind: z.literal('graph'),
    name: WorkflowNameSchema,
    description: z.string().max(2000).optional(),
    input: JsonSchemaObjectSchema.optional().describe('A JSON Schema of the start input.'),
    nodes: z.array(GraphNodeSchema).min(2).max(100),
    edges: z.array(GraphEdgeSchema).max(400),
    connectors: z.record(ActionNameSchema, ConnectorSchema).default({}),
    gates: GatesSchema.describe('Gates of service_task actions; agent_task nodes carry their own.'),
    approvals: ApprovalDefaultsSchema.optional(),
    trigger: TriggerSchema,
    destination: DestinationSchema.default({ type: 'stored' }),
    budget: BudgetSchema,
    credRefs: CredRefsSchema.default({}),
  })
  .strict();

/** The fields of a graph definition, parsed, before the graph-level checks. */
export type GraphDefinitionShape = z.output<typeof GraphDefinitionShapeSchema>;

const savedGraphDefinitionSchema = () =>
  GraphDefinitionShapeSchema.extend({ trigger: CheckedTriggerSchema }).superRefine(validateGraph);

/**
 * A graph workflow definition being saved: the fields with the trigger's save-time checks
 * (schemas/trigger-checks.ts), then the graph-level validation (validate.ts). In zod 4 a `.superRefine` keeps
 * the schema a ZodObject, so it stays a member of the `kind` discriminated union.
 */
export const GraphDefinitionSchema = /* @__PURE__ */ savedGraphDefinitionSchema();
export type GraphDefinition = z.output<typeof GraphDefinitionSchema>;
