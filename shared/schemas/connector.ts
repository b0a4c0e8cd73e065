/**
 * Named HTTP actions and integration verbs, declared in the workflow file as connectors.
 * Each becomes one action the model may call (if listed in `allowedActions`).
 */
import * as z from '../zod.ts';

const description = z.string().check(z.minLength(1), z.maxLength(1024));
const credentialSlot = z
  .string()
  .check(
    z.regex(/^[a-z][a-z0-9_]{0,63}$/, 'must name a slot of credRefs'),
    z.describe('The credRefs slot whose secret is injected server-side.'),
  );

const HttpUrlSchema = z.string().check(
  z.maxLength(2048),
  z.refine((value) => {
    try {
      const url = new URL(value.replaceAll(/\{[a-z_][a-z0-9_]*\}/g, 'x'));
      return (
        (url.protocol === 'https:' || url.protocol === 'http:') && url.username === '' && url.password === ''
      );
    } catch {
      return false;
    }
  }, 'must be an http(s) URL without user info; path parameters look like {name}'),
);

/** A small JSON Schema subset for a named action's input (object with typed properties). */
export const ActionInputSchemaSchema = z.strictObject({
  type: z.literal('object'),
  properties: z.record(
    z.string(),
    z.object({
      type: z.enum(['string', 'number', 'integer', 'boolean', 'object', 'array']),
      description: z.optional(z.string().check(z.maxLength(1024))),
      maxLength: z.optional(z.number().check(z.int(), z.positive())),
      enum: z.optional(z.array(z.union([z.string(), z.number()]))),
    }),
  ),
  required: z._default(z.array(z.string()), []),
});
export type ActionInputJsonSchema = z.infer<typeof ActionInputSchemaSchema>;

const flags = {
  idempotent: z
    ._default(z.boolean(), false)
    .check(z.describe('Safe to repeat with the same Idempotency-Key.')),
  irreversible: z
    ._default(z.boolean(), false)
    .check(z.describe('Irreversible actions always need approval.')),
  externalPublish: z
    ._default(z.boolean(), false)
    .check(z.describe('Publishing outside the team always needs approval.')),
};

export const HttpConnectorSchema = z.strictObject({
  kind: z.literal('http'),
  description,
  method: z.enum(['GET', 'POST', 'PUT', 'PATCH', 'DELETE']),
  url: HttpUrlSchema.check(
    z.describe('Target URL; {param} placeholders are filled from the input, URL-encoded.'),
  ),
  input: z._default(ActionInputSchemaSchema, { type: 'object', properties: {}, required: [] }),
  body: z
    ._default(z.enum(['json', 'none']), 'json')
    .check(z.describe('json: the input (minus path params) as a JSON body.')),
  credential: z.optional(
    z.strictObject({
      slot: credentialSlot,
      header: z._default(z.string().check(z.regex(/^[A-Za-z0-9-]{1,64}$/)), 'Authorization'),
      format: z._default(z.string().check(z.includes('{secret}'), z.maxLength(256)), 'Bearer {secret}'),
    }),
  ),
  ...flags,
});

export const SignedWebhookConnectorSchema = z.strictObject({
  kind: z.literal('signed_webhook'),
  description: z._default(description, 'POST a JSON payload to a webhook, signed with HMAC-SHA256.'),
  url: HttpUrlSchema,
  credential: z.strictObject({ slot: credentialSlot }).check(z.describe('The HMAC signing key.')),
  signatureHeader: z._default(z.string().check(z.regex(/^[A-Za-z0-9-]{1,64}$/)), 'X-Signature-256'),
  ...flags,
  externalPublish: z._default(z.boolean(), true),
});

export const SlackWebhookConnectorSchema = z.strictObject({
  kind: z.literal('slack_webhook'),
  description: z._default(description, 'Post a message to a Slack channel through an incoming webhook.'),
  credential: z.strictObject({ slot: credentialSlot }).check(z.describe('The webhook URL (a secret).')),
  ...flags,
  externalPublish: z._default(z.boolean(), true),
});

const githubBase = {
  repo: z.string().check(z.regex(/^[A-Za-z0-9_.-]+\/[A-Za-z0-9_.-]+$/, 'must be owner/name')),
  credential: z.strictObject({ slot: credentialSlot }).check(z.describe('A GitHub token with issues:write.')),
  apiBaseUrl: z._default(HttpUrlSchema, 'https://api.github.com'),
  ...flags,
  externalPublish: z._default(z.boolean(), true),
};

export const GithubCreateIssueConnectorSchema = z.strictObject({
  kind: z.literal('github_create_issue'),
  description: z._default(description, 'Create a GitHub issue.'),
  ...githubBase,
});

export const GithubCreateCommentConnectorSchema = z.strictObject({
  kind: z.literal('github_create_comment'),
  description: z._default(description, 'Comment on a GitHub issue or pull request.'),
  ...githubBase,
});

export const ConnectorSchema = z.discriminatedUnion('kind', [
  HttpConnectorSchema,
  SignedWebhookConnectorSchema,
  SlackWebhookConnectorSchema,
  GithubCreateIssueConnectorSchema,
  GithubCreateCommentConnectorSchema,
]);
export type Connector = z.infer<typeof ConnectorSchema>;
