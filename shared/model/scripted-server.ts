/**
 * A local server speaking the Messages API (`POST /v1/messages`, JSON or SSE, and
 * `POST /v1/messages/count_tokens`) and Bedrock's InvokeModel (`POST /model/{id}/invoke`, JSON, and
 * `…/invoke-with-response-stream`, event stream) that answers both from the same fixtures: offline
 * workflow runs and tests, through either SDK.
 * The turn served is derived from the request alone (its number of assistant messages), so retries
 * and concurrent conversations get deterministic answers. Format and rules: docs/scripted-model.md.
 */
import { createHash } from 'node:crypto';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { FIXTURE_HEADER } from './recording-headers.ts';
import {
  type BedrockRoute,
  bedrockRequestProblems,
  bedrockRoute,
  messagesRequestOf,
} from './scripted-bedrock.ts';
import { PromptCache, TooManyBreakpointsError } from './scripted-cache.ts';
import { checkExpectations, turnIndexOf, type WireRequest } from './scripted-expect.ts';
import { loadFixtures, nameOfKey, type ParsedFixture, type ScriptedFixture } from './scripted-fixture.ts';
import { readBody, recordedHeaders, sendJson } from './scripted-http.ts';
import { type CacheableRequest, requestTokens } from './scripted-prefix.ts';
import { bedrockReplies, messagesReplies, type Replies } from './scripted-replies.ts';
import { betasOf, requestProblems } from './scripted-request-rules.ts';
import { pickConversation } from './scripted-select.ts';
import { hasLoneSurrogate } from './scripted-unicode.ts';
import {
  buildMessage,
  errorBody,
  errorTypeFor,
  messageStartEvent,
  streamEvents,
  type WireMessage,
} from './scripted-wire.ts';

/** The header that selects a fixture when several are served (recording-headers.ts). */
export { FIXTURE_HEADER };

export type ScriptedModelServerOptions = {
  fixtures: ScriptedFixture | ScriptedFixture[];
  /** Default 0: any free port. */
  port?: number;
  /** Default 127.0.0.1. */
  host?: string;
  /** The prompt cache's clock, in epoch milliseconds (its 5-minute lifetime). Default: `Date.now`. */
  now?: () => number;
  /**
   * Called when a request names a fixture not served yet: fixtures written since the start (the local stack
   * reads its fixture directories again). Those it returns replace the served ones of the same name.
   */
  reload?: () => ScriptedFixture[];
  /** Ends the "no fixture named" error: how to add one. */
  missingHint?: (name: string) => string;
};

export type RecordedRequest = {
  method: string;
  path: string;
  fixture: string | undefined;
  turn: number | undefined;
  /** Lower-cased names; credentials (authorization, x-api-key) are redacted. */
  headers: Record<string, string>;
  body: unknown;
  /** The usage served (prompt-cache accounting included), for a request answered with a message. */
  usage?: WireMessage['usage'];
};

export type ScriptedFailure = {
  kind: 'expectation' | 'fixture' | 'turn' | 'request';
  fixture: string | undefined;
  turn: number | undefined;
  message: string;
};

export type ScriptedModelServer = {
  /** Base URL for the SDK's `baseURL`, e.g. `http://127.0.0.1:40123`. */
  url: string;
  requests: RecordedRequest[];
  failures: ScriptedFailure[];
  /** Stops the server (idempotent). */
  close(): Promise<void>;
};

/** A scripted-model failure: answered as HTTP 400 `invalid_request_error` and recorded in `failures`. */
class Failure extends Error {
  readonly kind: ScriptedFailure['kind'];
  constructor(kind: ScriptedFailure['kind'], message: string) {
    super(message);
    this.kind = kind;
  }
}

const isObject = (value: unknown): value is Record<string, unknown> =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

/** Starts the scripted Messages-API server (on 127.0.0.1 unless `host` says otherwise). */
export async function startScriptedModelServer(
  options: ScriptedModelServerOptions,
): Promise<ScriptedModelServer> {
  // With `reload`, a server may start with none: fixtures written later are read on the first request.
  const none = Array.isArray(options.fixtures) && options.fixtures.length === 0 && options.reload;
  let fixtures = none ? new Map<string, ParsedFixture>() : loadFixtures(options.fixtures);
  const requests: RecordedRequest[] = [];
  const failures: ScriptedFailure[] = [];
  // Attempts per (fixture, turn, conversation state), for `error.times`: the only state kept.
  const attempts = new Map<string, number>();
  // The prompt cache (scripted-cache.ts): shared by every fixture, as one organisation's cache is.
  const cache = new PromptCache(options.now ?? Date.now);
  let served = 0;

  /** The fixture keys served under `name`: the fixture itself, or each recorded conversation of it. */
  const keysOf = (name: string) => [...fixtures.entries()].filter(([key]) => nameOfKey(key) === name);

  function selectFixture(req: IncomingMessage, body: WireRequest): [string, ParsedFixture] {
    const header = req.headers[FIXTURE_HEADER];
    const wanted = Array.isArray(header) ? header[0] : header;
    const known = [...new Set([...fixtures.keys()].map(nameOfKey))].join(', ');
    if (wanted === undefined) {
      const only = fixtures.size === 1 ? [...fixtures.entries()][0] : undefined;
      if (only) return only;
      const message = `scripted-model: several fixtures are served (${known}); select one with the ${FIXTURE_HEADER} header`;
      throw new Failure('fixture', message);
    }
    let candidates = keysOf(wanted);
    if (candidates.length === 0 && options.reload) {
      let more: ScriptedFixture[];
      try {
        more = options.reload();
      } catch (error) {
        throw new Failure('fixture', (error as Error).message);
      }
      if (more.length > 0) fixtures = new Map([...fixtures, ...loadFixtures(more)]);
      candidates = keysOf(wanted);
    }
    if (candidates.length === 0) {
      const hint = options.missingHint ? `; ${options.missingHint(wanted)}` : '';
      throw new Failure('fixture', `scripted-model: no fixture named "${wanted}" (served: ${known})${hint}`);
    }
    const picked = pickConversation(wanted, candidates, body);
    if ('drift' in picked) throw new Failure('expectation', picked.drift);
    return [wanted, picked[1]];
  }

  /** Answers one model turn (either API); throws `Failure` for what the script does not allow. */
  function serveTurn(
    req: IncomingMessage,
    res: ServerResponse,
    turnRequest: { record: RecordedRequest; body: WireRequest; replies: Replies; requestId: string },
  ) {
    const { record, body, replies, requestId } = turnRequest;
    // What the real API refuses is refused here too, before any fixture is consulted (scripted-request-rules.ts).
    const wire = body as Record<string, unknown>;
    const refused = requestProblems(wire, betasOf(req.headers['anthropic-beta'], wire));
    if (refused.length > 0) throw new Failure('request', refused.join('; '));
    let account: ReturnType<PromptCache['account']>;
    try {
      account = cache.account(body as CacheableRequest);
    } catch (error) {
      if (error instanceof TooManyBreakpointsError) throw new Failure('request', error.message);
      throw error;
    }
    const [name, fixture] = selectFixture(req, body);
    const index = turnIndexOf(body);
    record.fixture = name;
    record.turn = index;
    const turn = fixture.turns[index];
    if (!turn) {
      const message = `scripted-model: fixture "${name}" has ${fixture.turns.length} turn(s), but the request holds ${index} assistant message(s) (turn index ${index})`;
      throw new Failure('turn', message);
    }
    const problems = checkExpectations(turn.expect, body);
    if (problems.length > 0) {
      const message = `scripted-model expectation failed: fixture "${name}" turn ${index}: ${problems.join('; ')}`;
      throw new Failure('expectation', message);
    }
    const message = buildMessage(turn, {
      fixture: name,
      turn: index,
      model: body.model ?? 'scripted',
      cache: account.usage,
    });
    const stream = body.stream === true;
    if (turn.error) {
      const state = createHash('sha256')
        .update(JSON.stringify([body.system, body.messages]))
        .digest('hex');
      const key = `${name}\0${index}\0${state}`;
      const attempt = (attempts.get(key) ?? 0) + 1;
      attempts.set(key, attempt);
      if (turn.error.times === undefined || attempt <= turn.error.times) {
        const type = turn.error.type ?? errorTypeFor(turn.error.status);
        const text = turn.error.message ?? `scripted ${type} (attempt ${attempt})`;
        // Mid-stream, both APIs carry the Messages API's `error` event (Bedrock inside a chunk).
        if (turn.error.inStream && stream)
          replies.events(res, [messageStartEvent(message), errorBody(type, text, requestId)], requestId);
        else replies.error(res, turn.error.status, type, text, requestId);
        return;
      }
    }
    account.commit();
    record.usage = message.usage;
    if (stream) replies.events(res, streamEvents(message), requestId);
    else replies.json(res, message, requestId);
  }

  /** A Bedrock request as the Messages API would carry it, once it is one Bedrock would accept. */
  function bedrockWire(
    req: IncomingMessage,
    route: BedrockRoute,
    body: Record<string, unknown>,
  ): WireRequest {
    const problems = bedrockRequestProblems(req.headers, body);
    if (problems.length > 0)
      throw new Failure(
        'request',
        `scripted-model: Bedrock would refuse this request: ${problems.join('; ')}`,
      );
    return messagesRequestOf(route, body);
  }

  async function handle(req: IncomingMessage, res: ServerResponse) {
    const requestId = `req_scripted_${++served}`;
    const path = (req.url ?? '/').split('?')[0] ?? '/';
    const raw = await readBody(req);
    const bedrock = req.method === 'POST' ? bedrockRoute(path) : undefined;
    const replies = bedrock ? bedrockReplies : messagesReplies;
    const known = path === '/v1/messages' || path === '/v1/messages/count_tokens' || bedrock !== undefined;
    if (req.method !== 'POST' || !known) {
      const message = `scripted-model: no route ${req.method} ${path}`;
      sendJson(res, 404, errorBody('not_found_error', message, requestId), requestId);
      return;
    }
    let body: unknown;
    try {
      body = JSON.parse(raw);
    } catch {
      body = undefined;
    }
    const record: RecordedRequest = {
      method: 'POST',
      path,
      fixture: undefined,
      turn: undefined,
      headers: recordedHeaders(req),
      body: isObject(body) ? body : raw,
    };
    requests.push(record);
    try {
      if (!isObject(body))
        throw new Failure('request', 'scripted-model: the request body is not a JSON object');
      if (!bedrock && hasLoneSurrogate(body))
        throw new Failure(
          'request',
          'The request body is not valid JSON: no low surrogate in string (scripted-model: a lone UTF-16 surrogate, as the Messages API refuses it)',
        );
      if (path === '/v1/messages/count_tokens') {
        const count = requestTokens(body as CacheableRequest);
        sendJson(res, 200, { input_tokens: count }, requestId);
        return;
      }
      const wire = bedrock ? bedrockWire(req, bedrock, body) : (body as WireRequest);
      serveTurn(req, res, { record, body: wire, replies, requestId });
    } catch (error) {
      if (!(error instanceof Failure)) throw error;
      failures.push({ kind: error.kind, fixture: record.fixture, turn: record.turn, message: error.message });
      replies.error(res, 400, 'invalid_request_error', error.message, requestId);
    }
  }

  const server = createServer((req, res) => {
    handle(req, res).catch((error: unknown) => {
      const message = `scripted-model: internal error: ${error instanceof Error ? error.message : String(error)}`;
      if (res.headersSent) res.end();
      else sendJson(res, 500, errorBody('api_error', message, 'req_scripted_error'), 'req_scripted_error');
    });
  });
  const host = options.host ?? '127.0.0.1';
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port ?? 0, host, () => resolve());
  });
  const { port } = server.address() as AddressInfo;
  let closing: Promise<void> | undefined;
  return {
    url: `http://${host.includes(':') ? `[${host}]` : host}:${port}`,
    requests,
    failures,
    close: () => {
      closing ??= new Promise<void>((resolve, reject) => {
        server.close((error) => (error ? reject(error) : resolve()));
        server.closeAllConnections();
      });
      return closing;
    },
  };
}
