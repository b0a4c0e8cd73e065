/**
 * The fixture engine's answers to the HTTP runtime protocol (shared/external/http/protocol.ts), as a pure
 * function of the engine's state and one request. The server (server.ts) adds faults, counting and sockets.
 */
import { canonicalJson } from '../../audit/canonical.ts';
import { HEADERS, HTTP_RUNTIME_PROTOCOL } from '../http/protocol.ts';
import {
  currentStatus,
  type Execution,
  type ExecutionScript,
  isFinished,
  manifestEntry,
  servedArtifact,
  sha256Hex,
} from './state.ts';

/** Names of the protocol's routes, as the request counts report them. */
export type RouteName = 'info' | 'dispatch' | 'status' | 'abort' | 'manifest' | 'artifact' | 'other';

export type FixtureRequest = { method: string; path: string; headers: Record<string, string>; body: string };
export type FixtureAnswer = { status: number; headers?: Record<string, string>; body: string | Uint8Array };

/** What the routes read and change. */
export type EngineState = {
  runtimeIncarnation: string;
  executions: Map<string, Execution>;
  scriptFor(key: string): ExecutionScript;
  /** Dispatches refused so far, by key (a script's `refuseTimes`). */
  refusals: Map<string, number>;
};

const json = (status: number, value: unknown): FixtureAnswer => ({
  status,
  headers: { 'content-type': 'application/json' },
  body: JSON.stringify(value),
});
const notFound = () => json(404, { error: 'not_found' });

/** The route a request is for (counted before any fault applies). */
export function routeOf(method: string, path: string): { route: RouteName; key?: string; rest?: string } {
  if (method === 'GET' && path === '/') return { route: 'info' };
  if (method === 'POST' && path === '/dispatch') return { route: 'dispatch' };
  const match = /^\/executions\/([^/]+)(?:\/(abort|artifacts)(?:\/(.+))?)?$/.exec(path);
  if (match === null) return { route: 'other' };
  const key = decodeURIComponent(match[1] ?? '');
  if (match[2] === undefined) return method === 'GET' ? { route: 'status', key } : { route: 'other' };
  if (match[2] === 'abort') return method === 'POST' ? { route: 'abort', key } : { route: 'other' };
  if (match[3] === undefined) return method === 'GET' ? { route: 'manifest', key } : { route: 'other' };
  return method === 'GET' ? { route: 'artifact', key, rest: match[3] } : { route: 'other' };
}

/** Answers one request. */
export function answer(state: EngineState, request: FixtureRequest): FixtureAnswer {
  const { route, key, rest } = routeOf(request.method, request.path);
  const execution = key === undefined ? undefined : state.executions.get(key);
  switch (route) {
    case 'info':
      return json(200, {
        protocol: HTTP_RUNTIME_PROTOCOL,
        engine: 'fixture',
        incarnation: state.runtimeIncarnation,
      });
    case 'dispatch':
      return dispatch(state, request);
    case 'status': {
      if (execution === undefined) return notFound();
      if (execution.cancel === 'pending') execution.cancel = 'done';
      const status = currentStatus(execution);
      execution.observes += 1;
      return json(200, status);
    }
    case 'abort': {
      if (execution === undefined) return notFound();
      const asked = parse(request.body) as { incarnation?: unknown } | undefined;
      if (asked?.incarnation !== execution.incarnation) {
        return json(409, { error: 'incarnation_mismatch', incarnation: execution.incarnation });
      }
      const mode = execution.script.abort ?? 'stop';
      if (!isFinished(execution) && mode !== 'ignore')
        execution.cancel = mode === 'stop' ? 'done' : 'pending';
      const { state: now } = currentStatus(execution);
      return json(202, { incarnation: execution.incarnation, acknowledged: mode !== 'ignore', state: now });
    }
    case 'manifest':
      if (execution === undefined) return notFound();
      return json(200, {
        incarnation: execution.incarnation,
        artifacts: (execution.script.artifacts ?? []).map(manifestEntry),
      });
    case 'artifact': {
      const path = (rest ?? '').split('/').map(decodeURIComponent).join('/');
      const artifact = execution?.script.artifacts?.find((candidate) => candidate.path === path);
      if (execution === undefined || artifact === undefined) return notFound();
      const served = servedArtifact(artifact);
      return {
        status: 200,
        headers: {
          'content-type': 'application/octet-stream',
          [HEADERS.incarnation]: execution.incarnation,
          [HEADERS.artifactPath]: served.path.split('/').map(encodeURIComponent).join('/'),
        },
        body: served.bytes,
      };
    }
    default:
      return notFound();
  }
}

function dispatch(state: EngineState, request: FixtureRequest): FixtureAnswer {
  const key = request.headers[HEADERS.idempotencyKey];
  const body = parse(request.body) as { payload?: unknown; payload_sha256?: unknown; callback_url?: unknown };
  if (key === undefined || key === '') return json(400, { error: 'missing Idempotency-Key' });
  if (body === undefined || !('payload' in body)) return json(400, { error: 'missing payload' });
  const digest = sha256Hex(canonicalJson(body.payload));
  if (body.payload_sha256 !== digest)
    return json(400, { error: 'payload_sha256 does not match the payload' });
  const existing = state.executions.get(key);
  if (existing !== undefined) {
    if (existing.payloadSha256 !== digest) {
      return json(409, { error: 'conflict', payload_sha256: existing.payloadSha256 });
    }
    return json(200, currentStatus(existing));
  }
  const script = echoed(state.scriptFor(key), request.headers);
  if (script.refuse !== undefined) {
    const refused = state.refusals.get(key) ?? 0;
    if (script.refuseTimes === undefined || refused < script.refuseTimes) {
      state.refusals.set(key, refused + 1);
      const answer = json(script.refuse, { error: 'refused by script' });
      if (script.retryAfter !== undefined)
        answer.headers = { ...answer.headers, 'retry-after': script.retryAfter };
      return answer;
    }
  }
  const execution: Execution = {
    key,
    incarnation: state.runtimeIncarnation,
    payload: body.payload,
    payloadSha256: digest,
    callbackUrl: typeof body.callback_url === 'string' ? body.callback_url : undefined,
    script,
    observes: 0,
    cancel: 'none',
  };
  state.executions.set(key, execution);
  return json(201, { key, incarnation: execution.incarnation, payload_sha256: digest, state: 'accepted' });
}

/** The script with `{echo}` replaced by the header its `echoHeader` names (state.ts). */
function echoed(script: ExecutionScript, headers: Record<string, string>): ExecutionScript {
  if (script.echoHeader === undefined) return script;
  const value = headers[script.echoHeader] ?? '';
  const fill = (text: string) => text.replaceAll('{echo}', () => value);
  return {
    ...script,
    ...(script.summary === undefined ? {} : { summary: fill(script.summary) }),
    ...(script.artifacts === undefined
      ? {}
      : {
          artifacts: script.artifacts.map((artifact) =>
            typeof artifact.content === 'string'
              ? { ...artifact, content: fill(artifact.content) }
              : artifact,
          ),
        }),
  };
}

function parse(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}
