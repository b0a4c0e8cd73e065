/**
 * What the console is built from. It is an application over the HTTP API: every page is drawn from the API's
 * own answers for the signed-in identity (`api`), never from the store, so the owner fence, the 404 for a
 * foreign id and every validation are the API's. Locally `api` calls the API app in-process; under
 * `wf console --aws` it sends SigV4-signed requests to the deployed API.
 */
import type { Identity } from '../api/deps.ts';
import type { Clock } from '../core/ports.ts';
import type { SessionTable } from '../local/sessions.ts';

/** The API's answer: its status and its JSON body. */
export type ApiAnswer = { status: number; body: unknown };

/** One API call made on behalf of `identity` (method and path under `/v1`, with its query). */
export type ConsoleApi = (identity: Identity, method: 'GET' | 'POST', path: string) => Promise<ApiAnswer>;

export type ConsoleDeps = {
  api: ConsoleApi;
  /** The identity a presented key stands for, or undefined (a wrong key). */
  login: (key: string) => Promise<Identity | undefined>;
  sessions: SessionTable;
  clock: Clock;
  /** The console's own origin: forms posted from anywhere else are refused. */
  origin: string;
  /** Shown on the sign-in page: what to paste (an API key, or the token `wf console --aws` printed). */
  keyHint?: string;
};

type ErrorBody = { error?: { code?: unknown; message?: unknown; fields?: unknown } };
export type ApiFieldError = { path: string; message: string };

const fieldsOf = (value: unknown): ApiFieldError[] =>
  Array.isArray(value)
    ? value.filter(
        (field): field is ApiFieldError =>
          typeof field?.path === 'string' && typeof field?.message === 'string',
      )
    : [];

/**
 * The API answered something other than success. The page shows the API's own status, code, message and
 * fields for a 4xx (the caller's request was refused); a 5xx is the upstream's failure (a 502).
 */
export class ConsoleApiError extends Error {
  readonly status: number;
  readonly code: string | undefined;
  readonly fields: ApiFieldError[];
  constructor(status: number, body: unknown) {
    const error = (body as ErrorBody | undefined)?.error;
    super(typeof error?.message === 'string' ? error.message : `the API answered HTTP ${status}`);
    this.name = 'ConsoleApiError';
    this.status = status;
    this.code = typeof error?.code === 'string' ? error.code : undefined;
    this.fields = fieldsOf(error?.fields);
  }
}

/**
 * The key was right but who it stands for could not be learnt (`wf console --aws`: `GET /v1/me` refused or
 * unreachable). Sign-in still fails (closed), and the page says why rather than "That key was not accepted."
 */
export class SignInUnavailableError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'SignInUnavailableError';
  }
}

/** The API could not be reached at all (a network failure, a signing failure): the console answers 502. */
export class ConsoleUpstreamError extends Error {
  constructor(cause: unknown) {
    super(cause instanceof Error ? cause.message : 'the API could not be reached', { cause });
    this.name = 'ConsoleUpstreamError';
  }
}

/** The port with any failure to reach the API marked as such (so it is told apart from a console fault). */
export const upstreamGuarded =
  (api: ConsoleApi): ConsoleApi =>
  async (identity, method, path) => {
    try {
      return await api(identity, method, path);
    } catch (error) {
      throw new ConsoleUpstreamError(error);
    }
  };

/** Calls the API and returns its body, or throws {@link ConsoleApiError}. */
export async function apiGet<T>(api: ConsoleApi, identity: Identity, path: string): Promise<T> {
  const answer = await api(identity, 'GET', path);
  if (answer.status < 200 || answer.status > 299) throw new ConsoleApiError(answer.status, answer.body);
  return answer.body as T;
}
