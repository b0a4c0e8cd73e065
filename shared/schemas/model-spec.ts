/** The `model` field of a workflow: an explicit id or a role, a provider and a thinking level. */
import * as z from '../zod.ts';

export const MODEL_ROLES = ['fast', 'balanced', 'deep'] as const;
export type ModelRole = (typeof MODEL_ROLES)[number];
export const THINKING_LEVELS = ['off', 'low', 'medium', 'high'] as const;
export const MODEL_PROVIDERS = ['anthropic', 'bedrock'] as const;

const ModelIdSchema = z
  .string()
  .check(z.regex(/^[a-z0-9][a-z0-9.:_-]{1,127}$/, 'must be a model id such as claude-sonnet-4-5'));

const ModelObjectSchema = z
  .strictObject({
    id: z
      .optional(ModelIdSchema)
      .check(z.describe('An explicit model id, e.g. claude-sonnet-4-5. Give either id or role.')),
    role: z
      .optional(z.string())
      .check(
        z.describe('A role the router resolves to a model: fast, balanced or deep. Give either id or role.'),
      ),
    provider: z._default(z.enum(MODEL_PROVIDERS), 'anthropic'),
    thinking: z
      ._default(z.enum(THINKING_LEVELS), 'off')
      .check(z.describe('Extended thinking level; off by default.')),
    maxTokens: z
      ._default(z.number().check(z.int(), z.gte(1), z.lte(64_000)), 4096)
      .check(z.describe('max_tokens per model call.')),
  })
  .check(
    z.superRefine((model, ctx) => {
      if (model.id === undefined && model.role === undefined) {
        ctx.addIssue({
          code: 'custom',
          message: 'give either an explicit model id or a role (fast, balanced, deep)',
        });
      }
      if (model.id !== undefined && model.role !== undefined) {
        ctx.addIssue({ code: 'custom', message: 'give either id or role, not both' });
      }
      if (model.role !== undefined && !(MODEL_ROLES as readonly string[]).includes(model.role)) {
        ctx.addIssue({
          code: 'custom',
          path: ['role'],
          message: `unknown model role '${model.role}'; use one of ${MODEL_ROLES.join(', ')}`,
        });
      }
    }),
  );

/** The workflow's model: `{ id }` or `{ role }`, plus provider, thinking level and max_tokens. */
export const ModelSpecSchema = ModelObjectSchema;
export type ModelSpec = z.output<typeof ModelSpecSchema>;
