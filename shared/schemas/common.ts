/** Small shared schema pieces: identifiers, names and timestamps. */
import * as z from '../zod.ts';

/**
 * Owner (tenant) id: always from verified identity, never from a request body. `|` and `/` are allowed for
 * JWT subjects such as `auth0|abc` or `repo:org/x:ref:refs/heads/main`; where an owner must be an AWS name
 * or tag, it is written as `ownerKey(owner)` (shared/credentials/owner-key.ts).
 */
export const OwnerIdSchema = z
  .string()
  .check(
    z.minLength(1),
    z.maxLength(128),
    z.regex(/^[A-Za-z0-9._:@+=|/-]+$/, 'may contain letters, digits and . _ : @ + = | / - only'),
  );

/** Action / tool names as the Messages API accepts them, kept to lower snake case. */
export const ActionNameSchema = z
  .string()
  .check(
    z.regex(
      /^[a-z][a-z0-9_]{0,63}$/,
      'must be lower snake case: a letter, then letters, digits or _ (at most 64)',
    ),
  );

export const WorkflowNameSchema = z
  .string()
  .check(
    z.regex(
      /^[a-z0-9][a-z0-9-]{0,62}$/,
      'must be a slug: lowercase letters, digits and -, at most 63 characters',
    ),
  );

/**
 * A Step Functions task token: 1 to 2,048 characters (`SendTaskSuccess`' `taskToken`,
 * https://docs.aws.amazon.com/step-functions/latest/apireference/API_SendTaskSuccess.html). The local runner's
 * tokens are ~60 characters; AWS's are far longer, so no schema may cap them below AWS's own limit.
 */
export const TaskTokenSchema = z.string().check(z.minLength(1), z.maxLength(2048));

export const IsoTimeSchema = z.iso.datetime({ offset: true });

export const UsageSchema = z.object({
  inputTokens: z.number().check(z.int(), z.nonnegative()),
  outputTokens: z.number().check(z.int(), z.nonnegative()),
  cacheCreationInputTokens: z.number().check(z.int(), z.nonnegative()),
  cacheReadInputTokens: z.number().check(z.int(), z.nonnegative()),
});
export type UsageTotals = z.infer<typeof UsageSchema>;

export const ZERO_USAGE: UsageTotals = {
  inputTokens: 0,
  outputTokens: 0,
  cacheCreationInputTokens: 0,
  cacheReadInputTokens: 0,
};

/** The current schema version of stored items; bumped with a migration note in docs/data-model.md. */
export const SCHEMA_VERSION = 1 as const;
