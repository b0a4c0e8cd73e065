/**
 * The CLI's HTTP client for the runtime's API: the local stack with an API key, or a deployed stack with
 * AWS credentials (SigV4, service `execute-api`). Errors carry the API's error body.
 */
import { createHash, createHmac } from 'node:crypto';
import { defaultProvider } from '@aws-sdk/credential-provider-node';
import { SignatureV4 } from '@smithy/signature-v4';

export type ApiAuth = { kind: 'api-key'; apiKey: string } | { kind: 'sigv4'; region: string };

export class ApiError extends Error {
  readonly status: number;
  readonly code: string;
  readonly fields: { path: string; message: string }[];
  constructor(status: number, body: unknown) {
    const error = (
      body as { error?: { code?: string; message?: string; fields?: { path: string; message: string }[] } }
    )?.error;
    super(error?.message ?? `the API answered HTTP ${status}`);
    this.name = 'ApiError';
    this.status = status;
    this.code = error?.code ?? `http_${status}`;
    this.fields = error?.fields ?? [];
  }
}

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

  constructor(baseUrl: string, auth: ApiAuth) {
    this.baseUrl = baseUrl.replace(/\/+$/, '');
    this.#auth = auth;
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
    try {
      response = await fetch(url, {
        method,
        headers,
        ...(options.body !== undefined ? { body: options.body } : {}),
      });
    } catch (cause) {
      throw new Error(
        `cannot reach the runtime at ${this.baseUrl} (${(cause as Error).message}); is it running? (wf local up)`,
        { cause },
      );
    }
    const text = await response.text();
    let body: unknown = text;
    try {
      body = text ? JSON.parse(text) : undefined;
    } catch {}
    if (!response.ok) throw new ApiError(response.status, body);
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
