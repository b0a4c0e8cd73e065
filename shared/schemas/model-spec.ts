/** The `model` field of a workflow: an explicit id or a role, a provider and a thinking level. */
import * as z from 'zod';

export const MODEL_ROLES = ['fast', 'balanced', 'deep'] as const;
export type ModelRole = (typeof MODEL_ROLES)[number];
export const THINKING_LEVELS = ['off', 'low', 'medium', 'high'] as const;
export const MODEL_PROVIDERS = ['anthropic', 'bedrock'] as const;

const ModelIdSchema = z
  .string()
  .regex(/^[a-z0-9][a-z0-9.:_-]{1,127}$/, 'must be a model id such as claude-sonnet-4-5');

const ModelObjectSchema = z
  .object({
    id: ModelIdSchema.optional().describe(
      'An explicit model id, e.g. claude-sonnet-4-5. Give either id or role.',
    ),
    role: z
      .string()
      .optional()
      .describe('A role the router resolves to a model: fast, balanced or deep. Give either id or role.'),
    provider: z.enum(MODEL_PROVIDERS).default('anthropic'),
    thinking: z.enum(THINKING_LEVELS).default('off').describe('Extended thinking level; off by default.'),
    maxTokens: z.number().int().min(1).max(64_000).default(4096).describe('max_tokens per model call.'),
  })
  .strict()
  .superRefine((model, ctx) => {
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
  });

/** The workflow's model: `{ id }` or `{ role }`, plus provider, thinking level and max_tokens. */
export const ModelSpecSchema = ModelObjectSchema;
export type ModelSpec = z.output<typeof ModelSpecSchema>;
