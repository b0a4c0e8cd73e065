/** The workflow definition: what a team saves and versions. Field reference: docs/workflow-file.md. */
import * as z from 'zod';
import {
  addIssues,
  allowedActionIssues,
  connectorIssues,
  destinationIssues,
  gateIssues,
  irreversibleIssues,
} from './action-checks.ts';
import { BudgetSchema } from './budget.ts';
import { ActionNameSchema, WorkflowNameSchema } from './common.ts';
import { ConnectorSchema } from './connector.ts';
import { CredRefsSchema } from './credentials.ts';
import { DestinationSchema } from './destination.ts';
import { ApprovalDefaultsSchema, GATE_MODES, GateSchema } from './gate.ts';
import { ModelSpecSchema } from './model-spec.ts';
import { TriggerSchema } from './trigger.ts';
import { CheckedTriggerSchema } from './trigger-checks.ts';

export const MAX_SYSTEM_PROMPT_CHARS = 100_000;
export const MAX_KNOWLEDGE_CHARS = 200_000;

export const PromptSchema = z
  .object({
    system: z
      .string()
      .min(1, 'must not be empty')
      .max(MAX_SYSTEM_PROMPT_CHARS, `is too long: the limit is ${MAX_SYSTEM_PROMPT_CHARS} characters`)
      .describe('The system prompt / persona.'),
    knowledge: z
      .array(z.object({ title: z.string().min(1).max(200), text: z.string().min(1) }).strict())
      .max(50)
      .default([])
      .describe('Knowledge snippets injected after the system prompt.'),
  })
  .strict();

/** The fields of an agent definition, without refinements (so the saved variant can extend it). */
const AgentDefinitionFieldsSchema = z
  .object({
    $schema: z
      .string()
      .optional()
      .describe('Editor hint: the JSON Schema of this file. Ignored by the runtime.'),
    kind: z
      .literal('agent')
      .optional()
      .describe('The kind of workflow: agent (the default) is a Claude tool loop; see also kind: graph.'),
    name: WorkflowNameSchema,
    description: z.string().max(2000).optional(),
    model: ModelSpecSchema,
    prompt: PromptSchema,
    allowedActions: z
      .array(ActionNameSchema)
      .max(64)
      .describe('The allow-set: only these are offered to the model.'),
    connectors: z
      .record(ActionNameSchema, ConnectorSchema)
      .default({})
      .describe('Named HTTP actions and integration verbs this workflow defines.'),
    gates: z
      .record(z.string(), z.union([z.enum(GATE_MODES), GateSchema]))
      .default({})
      .describe('Per action: allow, needs_approval or deny. Unlisted allowed actions default to allow.'),
    approvals: ApprovalDefaultsSchema.optional().describe('Default approvers and approval timeout.'),
    trigger: TriggerSchema,
    destination: DestinationSchema.default({ type: 'stored' }),
    budget: BudgetSchema,
    credRefs: CredRefsSchema.default({}),
  })
  .strict();

/** The cross-field checks of an agent definition, run whenever one is parsed. */
function agentDefinitionIssues(
  definition: z.output<typeof AgentDefinitionFieldsSchema>,
  ctx: z.RefinementCtx,
): void {
  const offered = new Set(definition.allowedActions);
  addIssues(ctx, allowedActionIssues(definition.allowedActions, definition.connectors, ['allowedActions']));
  addIssues(ctx, connectorIssues(definition.connectors, definition.credRefs));
  const destinationAction =
    definition.destination.type === 'http' ? definition.destination.action : undefined;
  addIssues(
    ctx,
    gateIssues({
      gates: definition.gates,
      approvals: definition.approvals,
      at: ['gates'],
      // The destination's connector may carry a gate without being offered to the model (e.g. `deny`).
      covers: (name) => offered.has(name) || name === destinationAction,
      uncovered: (name) =>
        `gate for '${name}', which is neither in allowedActions nor the destination's action`,
    }),
  );
  addIssues(
    ctx,
    irreversibleIssues({
      actions: definition.allowedActions,
      connectors: definition.connectors,
      gates: definition.gates,
      approvals: definition.approvals,
    }),
  );
  addIssues(ctx, destinationIssues(definition.destination, definition.connectors));
  const knowledgeChars = definition.prompt.knowledge.reduce((sum, item) => sum + item.text.length, 0);
  if (knowledgeChars > MAX_KNOWLEDGE_CHARS) {
    ctx.addIssue({
      code: 'custom',
      path: ['prompt', 'knowledge'],
      message: `is too long: ${knowledgeChars} characters, the limit is ${MAX_KNOWLEDGE_CHARS}`,
    });
  }
}

/**
 * An agent definition read back (a stored version, a job record, a delegated job's on-demand definition): every
 * check but the trigger's save-time ones, which it passed when it was saved (trigger-checks.ts).
 */
export const AgentDefinitionShapeSchema = AgentDefinitionFieldsSchema.superRefine(agentDefinitionIssues);

const savedAgentDefinitionSchema = () =>
  AgentDefinitionFieldsSchema.extend({ trigger: CheckedTriggerSchema }).superRefine(agentDefinitionIssues);

/**
 * An agent definition being saved: the shape and the trigger's save-time checks. Pure: functions that only read
 * definitions drop it, and with it croner and the event-pattern validator.
 */
export const WorkflowDefinitionSchema = /* @__PURE__ */ savedAgentDefinitionSchema();

/** An agent workflow definition (`kind` absent or `agent`). */
export type WorkflowDefinition = z.output<typeof WorkflowDefinitionSchema>;
export type WorkflowDefinitionInput = z.input<typeof WorkflowDefinitionSchema>;
