/**
 * Settings of the HTTP runtime adapter, as the deployment configures them (`engines.http-runtime.settings`).
 * The endpoint is validated here, so a bad one is refused when the registry is built, naming the field.
 */
import * as z from '../../zod.ts';

/** Why an endpoint is refused, or undefined. http(s), a host, no userinfo, query or fragment. */
export function endpointProblem(value: string): string | undefined {
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    return 'must be an absolute URL';
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') return 'must use http or https';
  if (url.hostname === '') return 'must have a host';
  if (url.username !== '' || url.password !== '')
    return 'must not carry userinfo (credentials come from secrets)';
  if (url.search !== '' || value.includes('?')) return 'must not have a query';
  if (url.hash !== '' || value.includes('#')) return 'must not have a fragment';
  return undefined;
}

/** An endpoint URL, checked by `endpointProblem`; trailing slashes are dropped so paths join cleanly. */
export const EndpointSchema = z.pipe(
  z.string().check(
    z.superRefine((value, ctx) => {
      const problem = endpointProblem(value);
      if (problem !== undefined) ctx.addIssue({ code: 'custom', message: problem });
    }),
  ),
  z.transform((value) => new URL(value).href.replace(/\/+$/, '')),
);

/** A secret's name inside the owner's namespace: the runtime resolves `wf/<ownerKey>/<name>`. */
const SecretNameSchema = z
  .string()
  .check(
    z.regex(
      /^[A-Za-z0-9._+=@-]{1,128}$/,
      'must be a secret name inside the owner namespace, e.g. engine-token',
    ),
  );

/** How the engine takes the workflow's credential: the header, and the value with `{secret}` replaced. */
export const AuthSchema = z.strictObject({
  header: z._default(
    z.string().check(z.regex(/^[A-Za-z0-9-]{1,64}$/, 'must be an HTTP header name')),
    'authorization',
  ),
  format: z._default(
    z.string().check(z.includes('{secret}', { message: 'must contain {secret}' })),
    'Bearer {secret}',
  ),
});

/** The optional status callback: where the engine pushes, and the HMAC key it signs with. */
export const CallbackSettingsSchema = z.strictObject({
  url: EndpointSchema,
  /** The owner's secret holding the shared HMAC key (signature scheme of signed_webhook connectors). */
  secret: SecretNameSchema,
  field: z.optional(z.string().check(z.minLength(1))),
  toleranceSeconds: z._default(z.number().check(z.int(), z.positive(), z.lte(3_600)), 300),
});

/** Settings of `http-runtime`. */
export const HttpRuntimeSettingsSchema = z.strictObject({
  endpoint: EndpointSchema,
  auth: z._default(AuthSchema, { header: 'authorization', format: 'Bearer {secret}' }),
  callback: z.optional(CallbackSettingsSchema),
  /** Cap on one artifact's size in bytes (default 32 MiB). */
  maxArtifactBytes: z._default(z.number().check(z.int(), z.positive()), 32 * 1024 * 1024),
});
export type HttpRuntimeSettings = z.output<typeof HttpRuntimeSettingsSchema>;
