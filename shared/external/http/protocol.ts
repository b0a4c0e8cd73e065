/**
 * The wire protocol of the HTTP runtime adapter (docs/external-engines.md, "The HTTP protocol"): a
 * Flue-style keyed-admission engine. Every per-execution answer names the incarnation, so a recreated
 * execution is recognised. The fixture engine serves exactly these shapes.
 */
import * as z from '../../zod.ts';

/** Protocol name and version an engine announces in its info answer. */
export const HTTP_RUNTIME_PROTOCOL = 'wf-external-http/1';

/** Request and response headers of the protocol (lower case, as node and fetch give them). */
export const HEADERS = {
  idempotencyKey: 'idempotency-key',
  incarnation: 'x-incarnation',
  artifactPath: 'x-artifact-path',
  signature: 'x-signature-256',
  signatureTimestamp: 'x-signature-timestamp',
} as const;

const Sha256Schema = z.string().check(z.regex(/^[0-9a-f]{64}$/, 'must be a lower-case hex SHA-256'));
const IdSchema = z.string().check(z.minLength(1), z.maxLength(200));

/** Our execution key on the wire: URL-safe, so it can be a path segment without ambiguity. */
export const ExecutionKeySchema = z
  .string()
  .check(z.regex(/^[A-Za-z0-9][A-Za-z0-9._:-]{0,199}$/, 'must be 1-200 characters of A-Z a-z 0-9 . _ : -'));

/** `GET /`: who the engine is. `incarnation` is the current life of the runtime. */
export const InfoSchema = z.object({
  protocol: z.literal(HTTP_RUNTIME_PROTOCOL),
  engine: z.string().check(z.minLength(1), z.maxLength(100)),
  incarnation: IdSchema,
});
export type Info = z.infer<typeof InfoSchema>;

/** `POST /dispatch` body (the key travels in the `Idempotency-Key` header). */
export const DispatchRequestSchema = z.object({
  payload: z.unknown(),
  payload_sha256: Sha256Schema,
  callback_url: z.optional(z.url()),
});
export type DispatchRequest = z.infer<typeof DispatchRequestSchema>;

/** Execution states on the wire; `waiting` carries a reason, the last three are terminal. */
export const WIRE_STATES = ['accepted', 'running', 'waiting', 'succeeded', 'failed', 'cancelled'] as const;

/** `GET /executions/{key}`, the dispatch answer and the callback body: one execution's status. */
export const ExecutionStatusSchema = z
  .object({
    key: ExecutionKeySchema,
    incarnation: IdSchema,
    payload_sha256: Sha256Schema,
    state: z.enum(WIRE_STATES),
    wait_reason: z.optional(z.enum(['human', 'budget', 'capacity'])),
    progress: z.optional(z.string().check(z.maxLength(2_000))),
    summary: z.optional(z.string().check(z.maxLength(20_000))),
  })
  .check(
    z.refine((status) => status.state !== 'waiting' || status.wait_reason !== undefined, {
      message: 'a waiting execution must say why (wait_reason)',
      path: ['wait_reason'],
    }),
  );
export type ExecutionStatus = z.infer<typeof ExecutionStatusSchema>;

/** `POST /executions/{key}/abort` body: the incarnation we mean to stop. */
export const AbortRequestSchema = z.object({ incarnation: IdSchema });

/** The abort answer: whether the engine took the request, and the state it reports now. */
export const AbortResponseSchema = z.object({
  incarnation: IdSchema,
  acknowledged: z.boolean(),
  state: z.enum(WIRE_STATES),
});
export type AbortResponse = z.infer<typeof AbortResponseSchema>;

/** One manifest entry: a relative path, a byte size and a SHA-256. */
export const ArtifactEntrySchema = z.object({
  path: z.string().check(z.minLength(1), z.maxLength(1_024)),
  size: z.number().check(z.int(), z.nonnegative()),
  sha256: Sha256Schema,
});

/** `GET /executions/{key}/artifacts`: the manifest of one incarnation. */
export const ManifestSchema = z.object({ incarnation: IdSchema, artifacts: z.array(ArtifactEntrySchema) });
export type Manifest = z.infer<typeof ManifestSchema>;

/** Error answers: `{ error: code, … }`. A 409 on dispatch names the payload digest the engine holds. */
export const ErrorBodySchema = z.object({
  error: z.string(),
  message: z.optional(z.string()),
  payload_sha256: z.optional(Sha256Schema),
  incarnation: z.optional(IdSchema),
});

/** Paths of the protocol, relative to the endpoint. Artifact paths keep their `/`, each segment encoded. */
export const paths = {
  info: () => '/',
  dispatch: () => '/dispatch',
  status: (key: string) => `/executions/${encodeURIComponent(key)}`,
  abort: (key: string) => `/executions/${encodeURIComponent(key)}/abort`,
  manifest: (key: string) => `/executions/${encodeURIComponent(key)}/artifacts`,
  artifact: (key: string, path: string) =>
    `/executions/${encodeURIComponent(key)}/artifacts/${path.split('/').map(encodeURIComponent).join('/')}`,
};

/** A relative artifact path: no leading `/`, no `.` or `..` or empty segment, no backslash or control char. */
export function artifactPathProblem(path: string): string | undefined {
  if (path.length === 0 || path.length > 1_024) return 'must be 1-1024 characters';
  if (path.includes('\\') || [...path].some((c) => c < ' ' || c === '\x7f'))
    return 'must not contain backslashes or control characters';
  if (path.split('/').some((s) => s === '' || s === '.' || s === '..'))
    return 'must be relative, without empty, "." or ".." segments';
  return undefined;
}
