/** The workflow definition: what a team saves and versions. Field reference: docs/workflow-file.md. */
import * as z from '../zod.ts';
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

export const PromptSchema = z.strictObject({
  system: z
    .string()
    .check(
      z.minLength(1, 'must not be empty'),
      z.maxLength(MAX_SYSTEM_PROMPT_CHARS, `is too long: the limit is ${MAX_SYSTEM_PROMPT_CHARS} characters`),
      z.describe('The system prompt / persona.'),
    ),
  knowledge: z
    ._default(
      z
        .array(
          z.strictObject({
            title: z.string().check(z.minLength(1), z.maxLength(200)),
            text: z.string().check(z.minLength(1)),
          }),
        )
        .check(z.maxLength(50)),
      [],
    )
    .check(z.describe('Knowledge snippets injected after the system prompt.')),
});

/** The fields of an agent definition, without refinements (so the saved variant can extend it). */
const AgentDefinitionFieldsSchema = z.strictObject({
  $schema: z
    .optional(z.string())
    .check(z.describe('Editor hint: the JSON Schema of this file. Ignored by the runtime.')),
  kind: z
    .optional(z.literal('agent'))
    .check(
      z.describe('The kind of workflow: agent (the default) is a Claude tool loop; see also kind: graph.'),
    ),
  name: WorkflowNameSchema,
  description: z.optional(z.string().check(z.maxLength(2000))),
  model: ModelSpecSchema,
  prompt: PromptSchema,
  allowedActions: z
    .array(ActionNameSchema)
    .check(z.maxLength(64), z.describe('The allow-set: only these are offered to the model.')),
  connectors: z
    ._default(z.record(ActionNameSchema, ConnectorSchema), {})
    .check(z.describe('Named HTTP actions and integration verbs this workflow defines.')),
  gates: z
    ._default(z.record(z.string(), z.union([z.enum(GATE_MODES), GateSchema])), {})
    .check(
      z.describe('Per action: allow, needs_approval or deny. Unlisted allowed actions default to allow.'),
    ),
  approvals: z.optional(ApprovalDefaultsSchema).check(z.describe('Default approvers and approval timeout.')),
  trigger: TriggerSchema,
  destination: z._default(DestinationSchema, { type: 'stored' }),
  budget: BudgetSchema,
  credRefs: z._default(CredRefsSchema, {}),
});

/** The cross-field checks of an agent definition, run whenever one is parsed. */
function agentDefinitionIssues(
  definition: z.output<typeof AgentDefinitionFieldsSchema>,
  ctx: z.core.$RefinementCtx,
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
export const AgentDefinitionShapeSchema = AgentDefinitionFieldsSchema.check(
  z.superRefine(agentDefinitionIssues),
);

const savedAgentDefinitionSchema = () =>
  z
    .extend(AgentDefinitionFieldsSchema, { trigger: CheckedTriggerSchema })
    .check(z.superRefine(agentDefinitionIssues));

/**
 * An agent definition being saved: the shape and the trigger's save-time checks. Pure: functions that only read
 * definitions drop it, and with it croner and the event-pattern validator.
 */
export const WorkflowDefinitionSchema = /* @__PURE__ */ savedAgentDefinitionSchema();

/** An agent workflow definition (`kind` absent or `agent`). */
export type WorkflowDefinition = z.output<typeof WorkflowDefinitionSchema>;
export type WorkflowDefinitionInput = z.input<typeof WorkflowDefinitionSchema>;
