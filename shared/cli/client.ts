/**
 * The CLI's HTTP client for the runtime's API: the local stack with an API key, or a deployed stack with
 * AWS credentials (SigV4, service `execute-api`). Errors carry the API's error body.
 */
import { createHash, createHmac } from 'node:crypto';
import { defaultProvider } from '@aws-sdk/credential-provider-node';
import { SignatureV4 } from '@smithy/signature-v4';

export type ApiAuth = { kind: 'api-key'; apiKey: string } | { kind: 'sigv4'; region: string };

type ErrorFields = { path: string; message: string }[];
type ErrorBody = { error?: { code?: unknown; message?: unknown; fields?: unknown }; message?: unknown };

/**
 * The error type API Gateway names in `x-amzn-errortype` on its own refusals (e.g. `ForbiddenException`,
 * sometimes followed by `:` and a URL): https://docs.aws.amazon.com/apigateway/latest/developerguide/supported-gateway-response-types.html
 */
const gatewayErrorType = (headers: Headers | undefined): string | undefined => {
  const value = headers?.get('x-amzn-errortype')?.split(':')[0]?.trim();
  return value ? value : undefined;
};

/**
 * A refusal. The runtime's API answers `{ error: { code, message, fields } }`; API Gateway's own refusals
 * (the IAM or JWT authorizer, throttling, a missing route) answer `{ "message": "..." }` with the type in
 * `x-amzn-errortype` (https://repost.aws/knowledge-center/api-gateway-troubleshoot-403-forbidden), and both
 * are kept: the message from either, the code from the API, else the gateway's type, else `http_<status>`.
 */
export class ApiError extends Error {
  readonly status: number;
  readonly code: string;
  readonly fields: ErrorFields;
  constructor(status: number, body: unknown, headers?: Headers) {
    const answer = (body !== null && typeof body === 'object' ? body : {}) as ErrorBody;
    const error = answer.error;
    const message =
      typeof error?.message === 'string'
        ? error.message
        : typeof answer.message === 'string'
          ? answer.message
          : `the API answered HTTP ${status}`;
    super(message);
    this.name = 'ApiError';
    this.status = status;
    this.code =
      typeof error?.code === 'string' ? error.code : (gatewayErrorType(headers) ?? `http_${status}`);
    this.fields = Array.isArray(error?.fields) ? (error.fields as ErrorFields) : [];
  }
}

/**
 * How long one request may take before the CLI gives up on it: 60 s unless `--request-timeout S` or
 * `WF_REQUEST_TIMEOUT` says otherwise. API Gateway gives an integration at most 30 s
 * (https://docs.aws.amazon.com/apigateway/latest/developerguide/http-api-quotas.html), so a deployed API
 * answers well within it; the margin is for slow networks and large uploads.
 */
export const DEFAULT_REQUEST_TIMEOUT_MS = 60_000;

/** Host names of this machine: only there can the hint "is it running? (wf local up)" be right. */
const isLoopback = (hostname: string) =>
  hostname === 'localhost' || hostname === '[::1]' || /^127\.\d+\.\d+\.\d+$/.test(hostname);

/** SHA-256 for the SigV4 signer, on node:crypto (HMAC when given a key). */
type SourceData = string | ArrayBuffer | ArrayBufferView;
const bytes = (data: SourceData): string | Uint8Array =>
  typeof data === 'string'
    ? data
    : ArrayBuffer.isView(data)
      ? new Uint8Array(data.buffer, data.byteOffset, data.byteLength)
      : new Uint8Array(data);

class Sha256 {
  readonly #hash;
  constructor(secret?: SourceData) {
    this.#hash = secret ? createHmac('sha256', bytes(secret)) : createHash('sha256');
  }
  update(data: SourceData) {
    this.#hash.update(bytes(data));
  }
  async digest() {
    return new Uint8Array(this.#hash.digest());
  }
}

export class ApiClient {
  readonly baseUrl: string;
  readonly #auth: ApiAuth;
  readonly #signer: SignatureV4 | undefined;
  readonly timeoutMs: number;

  constructor(baseUrl: string, auth: ApiAuth, options: { timeoutMs?: number } = {}) {
    this.baseUrl = baseUrl.replace(/\/+$/, '');
    this.#auth = auth;
    this.timeoutMs = options.timeoutMs ?? DEFAULT_REQUEST_TIMEOUT_MS;
    this.#signer =
      auth.kind === 'sigv4'
        ? new SignatureV4({
            service: 'execute-api',
            region: auth.region,
            credentials: defaultProvider(),
            sha256: Sha256,
          })
        : undefined;
  }

  async request<T>(
    method: string,
    path: string,
    options: { body?: string; contentType?: string; headers?: Record<string, string> } = {},
  ): Promise<{ status: number; body: T }> {
    const url = new URL(`${this.baseUrl}${path}`);
    let headers: Record<string, string> = {
      accept: 'application/json',
      ...(options.body !== undefined ? { 'content-type': options.contentType ?? 'application/json' } : {}),
      ...options.headers,
    };
    if (this.#auth.kind === 'api-key') headers.authorization = `Bearer ${this.#auth.apiKey}`;
    if (this.#signer) {
      const signed = await this.#signer.sign({
        method,
        protocol: url.protocol,
        hostname: url.hostname,
        ...(url.port ? { port: Number(url.port) } : {}),
        path: url.pathname,
        query: Object.fromEntries(url.searchParams),
        headers: { ...headers, host: url.host },
        ...(options.body !== undefined ? { body: options.body } : {}),
      });
      headers = signed.headers as Record<string, string>;
    }
    let response: Response;
    let text: string;
    try {
      response = await fetch(url, {
        method,
        headers,
        ...(options.body !== undefined ? { body: options.body } : {}),
        signal: AbortSignal.timeout(this.timeoutMs),
      });
      text = await response.text();
    } catch (cause) {
      const error = cause as Error;
      if (error.name === 'TimeoutError')
        throw new Error(
          `the runtime at ${this.baseUrl} did not answer within ${this.timeoutMs / 1000} s (--request-timeout S or WF_REQUEST_TIMEOUT changes the limit)`,
          { cause },
        );
      const hint = isLoopback(url.hostname) ? '; is it running? (wf local up)' : '';
      throw new Error(`cannot reach the runtime at ${this.baseUrl} (${error.message})${hint}`, { cause });
    }
    let body: unknown = text;
    try {
      body = text ? JSON.parse(text) : undefined;
    } catch {}
    if (!response.ok) throw new ApiError(response.status, body, response.headers);
    return { status: response.status, body: body as T };
  }

  get<T>(path: string) {
    return this.request<T>('GET', path).then((r) => r.body);
  }

  post<T>(
    path: string,
    body?: unknown,
    options: { contentType?: string; headers?: Record<string, string> } = {},
  ) {
    const text = body === undefined ? undefined : typeof body === 'string' ? body : JSON.stringify(body);
    return this.request<T>('POST', path, { ...(text !== undefined ? { body: text } : {}), ...options });
  }

  put<T>(path: string, body: string, options: { contentType?: string } = {}) {
    return this.request<T>('PUT', path, { body, ...options });
  }
}
