/**
 * A recording proxy in front of the Anthropic Messages API (`wf run start --record`, docs/local-development.md).
 * The local stack points the SDK's base URL at it; it forwards each request unchanged (minus the fixture
 * header that names the workflow and the header that names the run), answers with the upstream's answer, and
 * keeps the conversation per run, so it can be written out as a scripted-model fixture and replayed offline.
 * Per run, not per workflow name: names are unique per owner only, so keying by name served one owner's
 * conversation (system prompt, input, answers) to another owner's run of a workflow with the same name. A
 * request without a run header is forwarded and not recorded.
 * Recorded on the wire rather than at the model port: the fixture then holds exactly what the API said
 * (content blocks, stop reason, usage) and the request fields it checks are the ones the SDK sent.
 */
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { FIXTURE_HEADER, RECORDING_OWNER_HEADER, RECORDING_RUN_HEADER } from './recording-headers.ts';
import { messageOfSse, type RecordedMessage } from './recording-sse.ts';
import { firstUserText, systemText, turnIndexOf, type WireRequest } from './scripted-expect.ts';
import type { ScriptedFixture } from './scripted-fixture.ts';
import { readBody } from './scripted-http.ts';

/** Hop-by-hop headers, and the local stack's own two (recording-headers.ts): never sent to the API. */
const NOT_FORWARDED = new Set([
  'host',
  'connection',
  'content-length',
  'accept-encoding',
  'transfer-encoding',
  FIXTURE_HEADER,
  RECORDING_RUN_HEADER,
  RECORDING_OWNER_HEADER,
]);
const MAX_TURNS = 200;

type RecordedTurn = { request: WireRequest; message: RecordedMessage };
type Conversation = { owner: string; workflow: string; turns: RecordedTurn[] };

export type RecordingProxy = {
  url: string;
  /**
   * The conversation of run `runId` as a fixture named after its workflow, or undefined when none was
   * recorded for that run (only that run's own requests are ever in it).
   */
  fixtureOfRun(runId: string): ScriptedFixture | undefined;
  close(): Promise<void>;
};

const numbers = (usage: Record<string, unknown> | undefined) =>
  Object.fromEntries(
    ['input_tokens', 'output_tokens', 'cache_creation_input_tokens', 'cache_read_input_tokens']
      .map((key) => [key, usage?.[key]])
      .filter(([, value]) => typeof value === 'number'),
  );

/** A response block in the fixture's shape: the fields the scripted server serves, nothing else. */
function fixtureBlock(block: Record<string, unknown>) {
  switch (block.type) {
    case 'text':
      return { type: 'text', text: block.text };
    case 'tool_use':
      return { type: 'tool_use', id: block.id, name: block.name, input: block.input ?? {} };
    case 'thinking':
      return { type: 'thinking', thinking: block.thinking, signature: block.signature };
    case 'redacted_thinking':
      return { type: 'redacted_thinking', data: block.data };
    default:
      throw new Error(`recording: a ${String(block.type)} block cannot be replayed by the scripted server`);
  }
}

export function fixtureOfTurns(name: string, turns: RecordedTurn[]): ScriptedFixture {
  return {
    name,
    turns: turns.map(({ request, message }) => ({
      expect: {
        recorded: {
          ...(request.model ? { model: request.model } : {}),
          system: systemText(request),
          tools: (request.tools ?? []).map((tool) => tool.name ?? ''),
          firstUser: firstUserText(request),
        },
      },
      response: {
        content: message.content.map(fixtureBlock),
        ...(message.stop_reason ? { stop_reason: message.stop_reason } : {}),
        usage: numbers(message.usage),
      },
    })) as ScriptedFixture['turns'],
  };
}

/**
 * Keeps the conversations of up to `maxRunsPerOwner` runs per owner (default 100; a new run drops that owner's
 * oldest), so one owner's many runs never make another owner's recording disappear, and of up to `maxRuns`
 * in all (default 500; the oldest of any owner dropped): a local stack's memory. A request without an owner
 * header counts as owner ''.
 */
export async function startRecordingProxy(options: {
  upstream: string;
  maxRunsPerOwner?: number;
  maxRuns?: number;
}): Promise<RecordingProxy> {
  const upstream = options.upstream.replace(/\/+$/, '');
  const maxRunsPerOwner = options.maxRunsPerOwner ?? 100;
  const maxRuns = options.maxRuns ?? 500;
  /** By run id, in the order runs were first recorded. */
  const conversations = new Map<string, Conversation>();

  async function handle(req: IncomingMessage, res: ServerResponse) {
    const raw = await readBody(req);
    const headers: Record<string, string> = {};
    for (const [name, value] of Object.entries(req.headers))
      if (value !== undefined && !NOT_FORWARDED.has(name)) headers[name] = String(value);
    const answer = await fetch(`${upstream}${req.url ?? '/'}`, {
      method: req.method ?? 'POST',
      headers,
      ...(raw ? { body: raw } : {}),
    });
    const text = await answer.text();
    const workflow = req.headers[FIXTURE_HEADER];
    const runId = req.headers[RECORDING_RUN_HEADER];
    const owner = req.headers[RECORDING_OWNER_HEADER];
    if (
      answer.ok &&
      typeof workflow === 'string' &&
      typeof runId === 'string' &&
      runId !== '' &&
      req.url?.split('?')[0] === '/v1/messages'
    )
      record(
        { runId, owner: typeof owner === 'string' ? owner : '', workflow },
        JSON.parse(raw) as WireRequest,
        text,
        answer.headers.get('content-type') ?? '',
      );
    const replyHeaders: Record<string, string> = {};
    for (const name of ['content-type', 'request-id', 'retry-after', 'x-should-retry']) {
      const value = answer.headers.get(name);
      if (value) replyHeaders[name] = value;
    }
    res.writeHead(answer.status, replyHeaders);
    res.end(text);
  }

  /** Makes room for one more run of `owner` (Map keeps insertion order: the first found is the oldest). */
  function makeRoom(owner: string) {
    const own = [...conversations].filter(([, conversation]) => conversation.owner === owner);
    for (const [runId] of own.slice(0, Math.max(0, own.length - maxRunsPerOwner + 1)))
      conversations.delete(runId);
    while (conversations.size >= maxRuns) conversations.delete(conversations.keys().next().value as string);
  }

  function record(
    { runId, owner, workflow }: { runId: string; owner: string; workflow: string },
    request: WireRequest,
    text: string,
    contentType: string,
  ) {
    const message = contentType.includes('event-stream')
      ? messageOfSse(text)
      : (JSON.parse(text) as RecordedMessage);
    const index = turnIndexOf(request);
    if (index > MAX_TURNS) return;
    const known = conversations.get(runId);
    // Turn 0 (again: a retried first turn) starts the run's conversation over.
    const turns = index === 0 || !known ? [] : known.turns;
    turns[index] = { request, message };
    if (!known) makeRoom(owner);
    conversations.set(runId, { owner: known?.owner ?? owner, workflow, turns: turns.slice(0, index + 1) });
  }

  const server = createServer((req, res) => {
    handle(req, res).catch((error: unknown) => {
      if (res.headersSent) return res.end();
      res.writeHead(502, { 'content-type': 'application/json' });
      res.end(
        JSON.stringify({
          type: 'error',
          error: { type: 'api_error', message: `recording proxy: ${(error as Error).message}` },
        }),
      );
    });
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => resolve());
  });
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    fixtureOfRun(runId) {
      const conversation = conversations.get(runId);
      return conversation?.turns.length
        ? fixtureOfTurns(conversation.workflow, conversation.turns)
        : undefined;
    },
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}
