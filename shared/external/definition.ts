/**
 * The external workflow definition: `kind: external` hands the whole run to an execution engine we do not run,
 * through a registered adapter (issue #14). This module holds the shape; whether the engine is registered and
 * enabled in this deployment is checked when the workflow is saved. Field reference: docs/external-engines.md.
 */
import * as z from 'zod';
import { BudgetSchema } from '../schemas/budget.ts';
import { WorkflowNameSchema } from '../schemas/common.ts';
import { CredRefsSchema } from '../schemas/credentials.ts';
import { agentOnlyDestinationIssues, DestinationSchema } from '../schemas/destination.ts';
import { TriggerSchema } from '../schemas/trigger.ts';
import { CheckedTriggerSchema } from '../schemas/trigger-checks.ts';

/**
 * `off`: runs are refused. `shadow`: everything up to dispatch is decided and recorded (the exact payload and
 * key), nothing is sent. `report_only`: dispatch and observe, record results and artifacts, publish nothing to
 * the destination. `live`: dispatch, observe, deliver.
 */
export const EXTERNAL_MODES = ['off', 'shadow', 'report_only', 'live'] as const;
export type ExternalMode = (typeof EXTERNAL_MODES)[number];

export const EngineNameSchema = z
  .string()
  .regex(/^[a-z][a-z0-9-]{0,39}$/, 'must be an engine name: lowercase letters, digits and -, at most 40');

/** The fields of an external definition, without refinements (so the saved variant can extend it). */
const ExternalDefinitionFieldsSchema = z
  .object({
    $schema: z
      .string()
      .optional()
      .describe('Editor hint: the JSON Schema of this file. Ignored by the runtime.'),
    kind: z.literal('external'),
    name: WorkflowNameSchema,
    description: z.string().max(2000).optional(),
    engine: EngineNameSchema.describe('A registered engine this deployment enables, e.g. http-runtime.'),
    mode: z.enum(EXTERNAL_MODES).default('off'),
    payload: z
      .record(z.string(), z.unknown())
      .default({})
      .describe('Sent to the engine with the run input under `input`; part of the idempotent admission key.'),
    resultArtifact: z
      .string()
      .min(1)
      .max(500)
      .optional()
      .describe("Path of the engine's artifact that becomes the run's result; verified before use."),
    credential: z
      .string()
      .regex(/^[a-z][a-z0-9_]{0,63}$/)
      .optional()
      .describe('A credRefs slot whose secret the adapter injects into its requests.'),
    observe: z
      .object({
        initialIntervalSeconds: z.number().int().min(1).max(3600).default(5),
        maxIntervalSeconds: z.number().int().min(1).max(3600).default(300),
        unknownDeadlineSeconds: z
          .number()
          .int()
          .min(60)
          .max(7 * 24 * 3600)
          .default(3600)
          .describe('How long an engine may stay unreachable before the run ends outcome_unknown.'),
      })
      .strict()
      .default({ initialIntervalSeconds: 5, maxIntervalSeconds: 300, unknownDeadlineSeconds: 3600 }),
    trigger: TriggerSchema,
    destination: DestinationSchema.default({ type: 'stored' }),
    budget: BudgetSchema,
    credRefs: CredRefsSchema.default({}),
  })
  .strict();

/** The cross-field checks of an external definition, run whenever one is parsed. */
function externalDefinitionIssues(
  definition: z.output<typeof ExternalDefinitionFieldsSchema>,
  ctx: z.RefinementCtx,
): void {
  if (definition.credential !== undefined && !(definition.credential in definition.credRefs))
    ctx.addIssue({
      code: 'custom',
      path: ['credential'],
      message: `credential slot '${definition.credential}' is not declared in credRefs`,
    });
  if (definition.observe.initialIntervalSeconds > definition.observe.maxIntervalSeconds)
    ctx.addIssue({
      code: 'custom',
      path: ['observe', 'initialIntervalSeconds'],
      message: 'must not exceed observe.maxIntervalSeconds',
    });
}

/**
 * An external definition read back (a stored version): every check but the trigger's save-time ones, which it
 * passed when it was saved (schemas/trigger-checks.ts).
 */
export const ExternalDefinitionShapeSchema =
  ExternalDefinitionFieldsSchema.superRefine(externalDefinitionIssues);

const savedExternalDefinitionSchema = () =>
  ExternalDefinitionFieldsSchema.extend({ trigger: CheckedTriggerSchema }).superRefine((definition, ctx) => {
    externalDefinitionIssues(definition, ctx);
    for (const issue of agentOnlyDestinationIssues(definition.destination, 'external'))
      ctx.addIssue({ code: 'custom', ...issue });
  });

/**
 * An external definition being saved: the shape, the trigger's save-time checks and no http destination
 * (pure: readers drop it).
 */
export const ExternalDefinitionSchema = /* @__PURE__ */ savedExternalDefinitionSchema();
export type ExternalDefinition = z.output<typeof ExternalDefinitionSchema>;
