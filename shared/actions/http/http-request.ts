/**
 * `http_request{method, url, headers, body}`: the universal HTTP action, through the egress guard.
 * Model-supplied headers go to the egress port, which strips the forbidden ones; a request carrying a
 * credential value is refused before anything is sent. Not idempotent: `Action.idempotent` is one flag
 * per action, and a POST that crashed mid-flight must never be repeated blindly (the ledger settles it as
 * "outcome unknown"); reads that may be repeated belong to `fetch_url`.
 */

import type { Action } from '../../core/actions.ts';
import type { WorkflowDefinition } from '../../schemas/workflow.ts';
import * as z from '../../zod.ts';
import { credentialProblem } from '../credential-check.ts';
import { egressFailure, failed } from '../outcome.ts';
import { type PublishPolicy, sendingRedirectHosts, sendsOutside } from '../publish-policy.ts';
import { DEFAULT_MAX_TEXT_CHARS, httpResultText } from './response-text.ts';
import { HttpUrlInput } from './url.ts';

/** Methods `http_request` sends (the guard refuses CONNECT and TRACE anyway). */
export const HTTP_REQUEST_METHODS = ['GET', 'HEAD', 'POST', 'PUT', 'PATCH', 'DELETE', 'OPTIONS'] as const;
/** Cap on a request body, serialised. */
export const MAX_REQUEST_BODY_CHARS = 256 * 1024;
/** Cap on the number of model-supplied headers. */
export const MAX_REQUEST_HEADERS = 32;

const HeaderName = z
  .string()
  .check(z.regex(/^[!#$%&'*+.^_`|~0-9A-Za-z-]{1,64}$/, 'must be an HTTP header name'));
const HeaderValue = z
  .string()
  .check(z.maxLength(8192), z.regex(/^[^\r\n\0]*$/, 'must not contain line breaks'));

/** Input of `http_request`. */
export const HttpRequestInput = z
  .strictObject({
    method: z._default(z.enum(HTTP_REQUEST_METHODS), 'GET').check(z.describe('HTTP method, default GET.')),
    url: HttpUrlInput.check(z.describe('Absolute http(s) URL.')),
    headers: z
      .optional(
        z
          .record(HeaderName, HeaderValue)
          .check(
            z.refine(
              (headers) => Object.keys(headers).length <= MAX_REQUEST_HEADERS,
              `at most ${MAX_REQUEST_HEADERS} headers`,
            ),
          ),
      )
      .check(z.describe('Request headers. Never put credentials here: the runtime refuses such requests.')),
    body: z
      .optional(z.union([z.string(), z.record(z.string(), z.unknown()), z.array(z.unknown())]))
      .check(z.describe('Request body: a string, or a JSON object/array (sent as application/json).')),
  })
  .check(
    z.superRefine((input, ctx) => {
      if (input.body !== undefined && (input.method === 'GET' || input.method === 'HEAD')) {
        ctx.addIssue({
          code: 'custom',
          path: ['body'],
          message: `a ${input.method} request cannot have a body`,
        });
      }
      if (input.body !== undefined && bodyText(input.body).length > MAX_REQUEST_BODY_CHARS) {
        ctx.addIssue({
          code: 'custom',
          path: ['body'],
          message: `must be at most ${MAX_REQUEST_BODY_CHARS} characters`,
        });
      }
    }),
  );
export type HttpRequestInput = z.output<typeof HttpRequestInput>;

const bodyText = (body: NonNullable<HttpRequestInput['body']>): string =>
  typeof body === 'string' ? body : JSON.stringify(body);

/** Options of `http_request`: text cap (default 20,000). */
export type HttpRequestOptions = { maxTextChars?: number; publish?: PublishPolicy };

/** The http_request action for one workflow (its credRefs are what the credential check looks for). */
export function httpRequestAction(definition: WorkflowDefinition, options: HttpRequestOptions = {}): Action {
  const maxChars = options.maxTextChars ?? DEFAULT_MAX_TEXT_CHARS;
  return {
    name: 'http_request',
    description:
      'Send an HTTP request to a public URL and get the status, the main response headers and the body text ' +
      `(at most ${maxChars} characters). Never include credentials: the runtime refuses such requests.`,
    input: HttpRequestInput,
    idempotent: false,
    irreversible: false,
    // POST, PUT, PATCH and DELETE to a host outside the deployment publish: they need approval.
    publishesExternally: (raw) => {
      const input = raw as HttpRequestInput;
      return sendsOutside(input.method, input.url, options.publish);
    },
    target: (raw) => {
      const input = raw as { method?: string; url?: unknown };
      return { method: input.method ?? 'GET', url: String(input.url) };
    },
    async run(raw, ctx) {
      const input = raw as HttpRequestInput;
      const body = input.body === undefined ? undefined : bodyText(input.body);
      const headers: Record<string, string> = {};
      for (const [name, value] of Object.entries(input.headers ?? {})) {
        if (name.toLowerCase() !== 'idempotency-key') headers[name] = value;
      }
      if (
        typeof input.body === 'object' &&
        !Object.keys(headers).some((h) => h.toLowerCase() === 'content-type')
      ) {
        headers['content-type'] = 'application/json';
      }
      const headerText = Object.entries(headers).map(([name, value]) => `${name}: ${value}`);
      const problem = await credentialProblem(ctx, definition, [input.url, ...headerText, body ?? '']);
      if (problem) return failed(`Refused: ${problem}. Nothing was sent.`);
      // The ledger's key, so a server can recognise a repeat; the model's own value is not used.
      headers['Idempotency-Key'] = ctx.idempotencyKey;
      try {
        const response = await ctx.egress.request({
          method: input.method,
          url: input.url,
          headers,
          ...(body === undefined ? {} : { body }),
          // A POST classified (or approved) for this URL's host is not redirected anywhere else.
          unsafeRedirectHosts: sendingRedirectHosts(input.url, options.publish),
        });
        return httpResultText(response, maxChars);
      } catch (error) {
        return egressFailure(error);
      }
    },
  };
}
