/**
 * Named HTTP actions and integration verbs, declared in the workflow file as connectors.
 * Each becomes one action the model may call (if listed in `allowedActions`).
 */
import * as z from 'zod';

const description = z.string().min(1).max(1024);
const credentialSlot = z
  .string()
  .regex(/^[a-z][a-z0-9_]{0,63}$/, 'must name a slot of credRefs')
  .describe('The credRefs slot whose secret is injected server-side.');

const HttpUrlSchema = z
  .string()
  .max(2048)
  .refine((value) => {
    try {
      const url = new URL(value.replaceAll(/\{[a-z_][a-z0-9_]*\}/g, 'x'));
      return (
        (url.protocol === 'https:' || url.protocol === 'http:') && url.username === '' && url.password === ''
      );
    } catch {
      return false;
    }
  }, 'must be an http(s) URL without user info; path parameters look like {name}');

/** A small JSON Schema subset for a named action's input (object with typed properties). */
export const ActionInputSchemaSchema = z
  .object({
    type: z.literal('object'),
    properties: z.record(
      z.string(),
      z.object({
        type: z.enum(['string', 'number', 'integer', 'boolean', 'object', 'array']),
        description: z.string().max(1024).optional(),
        maxLength: z.number().int().positive().optional(),
        enum: z.array(z.union([z.string(), z.number()])).optional(),
      }),
    ),
    required: z.array(z.string()).default([]),
  })
  .strict();
export type ActionInputJsonSchema = z.infer<typeof ActionInputSchemaSchema>;

const flags = {
  idempotent: z.boolean().default(false).describe('Safe to repeat with the same Idempotency-Key.'),
  irreversible: z.boolean().default(false).describe('Irreversible actions always need approval.'),
  externalPublish: z.boolean().default(false).describe('Publishing outside the team always needs approval.'),
};

export const HttpConnectorSchema = z
  .object({
    kind: z.literal('http'),
    description,
    method: z.enum(['GET', 'POST', 'PUT', 'PATCH', 'DELETE']),
    url: HttpUrlSchema.describe('Target URL; {param} placeholders are filled from the input, URL-encoded.'),
    input: ActionInputSchemaSchema.default({ type: 'object', properties: {}, required: [] }),
    body: z
      .enum(['json', 'none'])
      .default('json')
      .describe('json: the input (minus path params) as a JSON body.'),
    credential: z
      .object({
        slot: credentialSlot,
        header: z
          .string()
          .regex(/^[A-Za-z0-9-]{1,64}$/)
          .default('Authorization'),
        format: z.string().includes('{secret}').max(256).default('Bearer {secret}'),
      })
      .strict()
      .optional(),
    ...flags,
  })
  .strict();

export const SignedWebhookConnectorSchema = z
  .object({
    kind: z.literal('signed_webhook'),
    description: description.default('POST a JSON payload to a webhook, signed with HMAC-SHA256.'),
    url: HttpUrlSchema,
    credential: z.object({ slot: credentialSlot }).strict().describe('The HMAC signing key.'),
    signatureHeader: z
      .string()
      .regex(/^[A-Za-z0-9-]{1,64}$/)
      .default('X-Signature-256'),
    ...flags,
    externalPublish: z.boolean().default(true),
  })
  .strict();

export const SlackWebhookConnectorSchema = z
  .object({
    kind: z.literal('slack_webhook'),
    description: description.default('Post a message to a Slack channel through an incoming webhook.'),
    credential: z.object({ slot: credentialSlot }).strict().describe('The webhook URL (a secret).'),
    ...flags,
    externalPublish: z.boolean().default(true),
  })
  .strict();

const githubBase = {
  repo: z.string().regex(/^[A-Za-z0-9_.-]+\/[A-Za-z0-9_.-]+$/, 'must be owner/name'),
  credential: z.object({ slot: credentialSlot }).strict().describe('A GitHub token with issues:write.'),
  apiBaseUrl: HttpUrlSchema.default('https://api.github.com'),
  ...flags,
  externalPublish: z.boolean().default(true),
};

export const GithubCreateIssueConnectorSchema = z
  .object({
    kind: z.literal('github_create_issue'),
    description: description.default('Create a GitHub issue.'),
    ...githubBase,
  })
  .strict();

export const GithubCreateCommentConnectorSchema = z
  .object({
    kind: z.literal('github_create_comment'),
    description: description.default('Comment on a GitHub issue or pull request.'),
    ...githubBase,
  })
  .strict();

export const ConnectorSchema = z.discriminatedUnion('kind', [
  HttpConnectorSchema,
  SignedWebhookConnectorSchema,
  SlackWebhookConnectorSchema,
  GithubCreateIssueConnectorSchema,
  GithubCreateCommentConnectorSchema,
]);
export type Connector = z.infer<typeof ConnectorSchema>;
