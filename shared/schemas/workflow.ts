/** The workflow definition: what a team saves and versions. Field reference: docs/workflow-file.md. */
import * as z from 'zod';
import { BudgetSchema } from './budget.ts';
import { isBuiltinActionName } from './builtin-actions.ts';
import { ActionNameSchema, WorkflowNameSchema } from './common.ts';
import { ConnectorSchema } from './connector.ts';
import { CredRefsSchema } from './credentials.ts';
import { DestinationSchema } from './destination.ts';
import { ApprovalDefaultsSchema, GATE_MODES, GateSchema } from './gate.ts';
import { ModelSpecSchema } from './model-spec.ts';
import { TriggerSchema } from './trigger.ts';

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

export const WorkflowDefinitionSchema = z
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
  .strict()
  .superRefine((definition, ctx) => {
    const seen = new Set<string>();
    definition.allowedActions.forEach((name, index) => {
      if (seen.has(name))
        ctx.addIssue({
          code: 'custom',
          path: ['allowedActions', index],
          message: `'${name}' is listed twice`,
        });
      seen.add(name);
      if (!isBuiltinActionName(name) && !(name in definition.connectors)) {
        ctx.addIssue({
          code: 'custom',
          path: ['allowedActions', index],
          message: `'${name}' is neither a built-in action nor a connector defined in connectors`,
        });
      }
    });
    for (const name of Object.keys(definition.connectors)) {
      if (isBuiltinActionName(name)) {
        ctx.addIssue({
          code: 'custom',
          path: ['connectors', name],
          message: `'${name}' is a built-in action name; choose another`,
        });
      }
      const connector = definition.connectors[name]!;
      if (connector.credential && !(connector.credential.slot in definition.credRefs)) {
        ctx.addIssue({
          code: 'custom',
          path: ['connectors', name, 'credential', 'slot'],
          message: `credential slot '${connector.credential.slot}' is not declared in credRefs`,
        });
      }
    }
    const destinationAction =
      definition.destination.type === 'http' ? definition.destination.action : undefined;
    for (const [name, gate] of Object.entries(definition.gates)) {
      // The destination's connector may carry a gate without being offered to the model (e.g. `deny`).
      if (!seen.has(name) && name !== destinationAction) {
        ctx.addIssue({
          code: 'custom',
          path: ['gates', name],
          message: `gate for '${name}', which is neither in allowedActions nor the destination's action`,
        });
      }
      const mode = typeof gate === 'string' ? gate : gate.mode;
      const approvers = typeof gate === 'string' ? undefined : gate.approvers;
      if (mode === 'needs_approval' && !approvers && !definition.approvals) {
        ctx.addIssue({
          code: 'custom',
          path: ['gates', name],
          message: 'needs_approval needs approvers: set gates.<action>.approvers or approvals.approvers',
        });
      }
    }
    for (const name of definition.allowedActions) {
      const connector = definition.connectors[name];
      if (connector && (connector.irreversible || connector.externalPublish) && !definition.approvals) {
        const gate = definition.gates[name];
        if (!(typeof gate === 'object' && gate.approvers)) {
          ctx.addIssue({
            code: 'custom',
            path: ['connectors', name],
            message:
              'is irreversible or publishes externally, so it always needs approval: set approvals.approvers',
          });
        }
      }
    }
    if (definition.destination.type === 'http') {
      const target = definition.connectors[definition.destination.action];
      if (!target) {
        ctx.addIssue({
          code: 'custom',
          path: ['destination', 'action'],
          message: `'${definition.destination.action}' is not a connector of this workflow`,
        });
      } else if (target.irreversible || target.externalPublish) {
        ctx.addIssue({
          code: 'custom',
          path: ['destination', 'action'],
          message: `'${definition.destination.action}' publishes externally or is irreversible, so it needs approval, which a delivery cannot wait for: let the model call it as a gated action instead`,
        });
      }
    }
    const knowledgeChars = definition.prompt.knowledge.reduce((sum, item) => sum + item.text.length, 0);
    if (knowledgeChars > MAX_KNOWLEDGE_CHARS) {
      ctx.addIssue({
        code: 'custom',
        path: ['prompt', 'knowledge'],
        message: `is too long: ${knowledgeChars} characters, the limit is ${MAX_KNOWLEDGE_CHARS}`,
      });
    }
  });

/** An agent workflow definition (`kind` absent or `agent`). */
export type WorkflowDefinition = z.output<typeof WorkflowDefinitionSchema>;
export type WorkflowDefinitionInput = z.input<typeof WorkflowDefinitionSchema>;
