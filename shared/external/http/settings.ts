/**
 * Settings of the HTTP runtime adapter, as the deployment configures them (`engines.http-runtime.settings`).
 * The endpoint is validated here, so a bad one is refused when the registry is built, naming the field.
 */
import { z } from 'zod';

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
export const EndpointSchema = z
  .string()
  .superRefine((value, ctx) => {
    const problem = endpointProblem(value);
    if (problem !== undefined) ctx.addIssue({ code: 'custom', message: problem });
  })
  .transform((value) => new URL(value).href.replace(/\/+$/, ''));

/** A secret's name inside the owner's namespace: the runtime resolves `wf/<ownerKey>/<name>`. */
const SecretNameSchema = z
  .string()
  .regex(/^[A-Za-z0-9._+=@-]{1,128}$/, 'must be a secret name inside the owner namespace, e.g. engine-token');

/** How the engine takes the workflow's credential: the header, and the value with `{secret}` replaced. */
export const AuthSchema = z
  .object({
    header: z
      .string()
      .regex(/^[A-Za-z0-9-]{1,64}$/, 'must be an HTTP header name')
      .default('authorization'),
    format: z.string().includes('{secret}', { message: 'must contain {secret}' }).default('Bearer {secret}'),
  })
  .strict();

/** The optional status callback: where the engine pushes, and the HMAC key it signs with. */
export const CallbackSettingsSchema = z
  .object({
    url: EndpointSchema,
    /** The owner's secret holding the shared HMAC key (signature scheme of signed_webhook connectors). */
    secret: SecretNameSchema,
    field: z.string().min(1).optional(),
    toleranceSeconds: z.number().int().positive().max(3_600).default(300),
  })
  .strict();

/** Settings of `http-runtime`. */
export const HttpRuntimeSettingsSchema = z
  .object({
    endpoint: EndpointSchema,
    auth: AuthSchema.default({ header: 'authorization', format: 'Bearer {secret}' }),
    callback: CallbackSettingsSchema.optional(),
    /** Cap on one artifact's size in bytes (default 32 MiB). */
    maxArtifactBytes: z
      .number()
      .int()
      .positive()
      .default(32 * 1024 * 1024),
  })
  .strict();
export type HttpRuntimeSettings = z.output<typeof HttpRuntimeSettingsSchema>;
