/**
 * The external workflow definition: `kind: external` hands the whole run to an execution engine we do not run,
 * through a registered adapter (issue #14). This module holds the shape; whether the engine is registered and
 * enabled in this deployment is checked when the workflow is saved. Field reference: docs/external-workflows.md.
 */

import { BudgetSchema } from '../schemas/budget.ts';
import { WorkflowNameSchema } from '../schemas/common.ts';
import { CredRefsSchema } from '../schemas/credentials.ts';
import { agentOnlyDestinationIssues, DestinationSchema } from '../schemas/destination.ts';
import { TriggerSchema } from '../schemas/trigger.ts';
import { CheckedTriggerSchema } from '../schemas/trigger-checks.ts';
import * as z from '../zod.ts';

/**
 * `off`: runs are refused. `shadow`: everything up to dispatch is decided and recorded (the exact payload and
 * key), nothing is sent. `report_only`: dispatch and observe, record results and artifacts, publish nothing to
 * the destination. `live`: dispatch, observe, deliver.
 */
export const EXTERNAL_MODES = ['off', 'shadow', 'report_only', 'live'] as const;
export type ExternalMode = (typeof EXTERNAL_MODES)[number];

export const EngineNameSchema = z
  .string()
  .check(
    z.regex(/^[a-z][a-z0-9-]{0,39}$/, 'must be an engine name: lowercase letters, digits and -, at most 40'),
  );

/** The fields of an external definition, without refinements (so the saved variant can extend it). */
const ExternalDefinitionFieldsSchema = z.strictObject({
  $schema: z
    .optional(z.string())
    .check(z.describe('Editor hint: the JSON Schema of this file. Ignored by the runtime.')),
  kind: z.literal('external'),
  name: WorkflowNameSchema,
  description: z.optional(z.string().check(z.maxLength(2000))),
  engine: EngineNameSchema.check(
    z.describe('A registered engine this deployment enables, e.g. http-runtime.'),
  ),
  mode: z._default(z.enum(EXTERNAL_MODES), 'off'),
  payload: z
    ._default(z.record(z.string(), z.unknown()), {})
    .check(
      z.describe(
        'Sent to the engine with the run input under `input`; part of the idempotent admission key.',
      ),
    ),
  resultArtifact: z
    .optional(z.string().check(z.minLength(1), z.maxLength(500)))
    .check(z.describe("Path of the engine's artifact that becomes the run's result; verified before use.")),
  credential: z
    .optional(z.string().check(z.regex(/^[a-z][a-z0-9_]{0,63}$/)))
    .check(z.describe('A credRefs slot whose secret the adapter injects into its requests.')),
  observe: z._default(
    z.strictObject({
      initialIntervalSeconds: z._default(z.number().check(z.int(), z.gte(1), z.lte(3600)), 5),
      maxIntervalSeconds: z._default(z.number().check(z.int(), z.gte(1), z.lte(3600)), 300),
      unknownDeadlineSeconds: z
        ._default(z.number().check(z.int(), z.gte(60), z.lte(7 * 24 * 3600)), 3600)
        .check(z.describe('How long an engine may stay unreachable before the run ends outcome_unknown.')),
    }),
    { initialIntervalSeconds: 5, maxIntervalSeconds: 300, unknownDeadlineSeconds: 3600 },
  ),
  trigger: TriggerSchema,
  destination: z._default(DestinationSchema, { type: 'stored' }),
  budget: BudgetSchema,
  credRefs: z._default(CredRefsSchema, {}),
});

/** The cross-field checks of an external definition, run whenever one is parsed. */
function externalDefinitionIssues(
  definition: z.output<typeof ExternalDefinitionFieldsSchema>,
  ctx: z.core.$RefinementCtx,
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
export const ExternalDefinitionShapeSchema = ExternalDefinitionFieldsSchema.check(
  z.superRefine(externalDefinitionIssues),
);

const savedExternalDefinitionSchema = () =>
  z.extend(ExternalDefinitionFieldsSchema, { trigger: CheckedTriggerSchema }).check(
    z.superRefine((definition, ctx) => {
      externalDefinitionIssues(definition, ctx);
      for (const issue of agentOnlyDestinationIssues(definition.destination, 'external'))
        ctx.addIssue({ code: 'custom', ...issue });
    }),
  );

/**
 * An external definition being saved: the shape, the trigger's save-time checks and no http destination
 * (pure: readers drop it).
 */
export const ExternalDefinitionSchema = /* @__PURE__ */ savedExternalDefinitionSchema();
export type ExternalDefinition = z.output<typeof ExternalDefinitionSchema>;
