/**
 * `GET /local/runs/{id}/recording` is an owner route: a delegated-jobs client's key gets 403 before any read
 * (before the fix it read its owner's recorded conversations), and a foreign run answers like a missing one.
 * Through the real recording proxy (the real SDK, a loopback stand-in for the API): a run gets only its own
 * conversation, never another owner's of a workflow with the same name (before the fix the proxy kept one
 * conversation per workflow name, and bob's "triage" run was served alice's).
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { apiKeyAuthenticator } from '../../shared/api/auth.ts';
import type { ModelRequest } from '../../shared/core/ports.ts';
import { recordingRoutes } from '../../shared/local/recording-routes.ts';
import { type RecordingProxy, startRecordingProxy } from '../../shared/model/recording-proxy.ts';
import { modelFor } from '../../shared/runtime/model-router.ts';
import type { DynamoStore } from '../../shared/store/index.ts';

const OWNER_KEY = 'wfl_owner_key_0123456789abcdef';
const CLIENT_KEY = 'wfl_client_key_0123456789abcdef';
const OTHER_KEY = 'wfl_other_key_0123456789abcdef';

function routesUnderTest() {
  const reads: string[] = [];
  const store = {
    getRun: async (runId: string) => {
      reads.push(runId);
      return runId === 'run_alice000001' ? { runId, owner: 'alice', workflowName: 'triage' } : undefined;
    },
  } as unknown as DynamoStore;
  const recorder = { fixtureOfRun: () => ({ turns: [] }) } as unknown as RecordingProxy;
  const authenticator = apiKeyAuthenticator(
    JSON.stringify({
      keys: {
        [OWNER_KEY]: { owner: 'alice' },
        [CLIENT_KEY]: { owner: 'alice', client: 'report-bot' },
        [OTHER_KEY]: { owner: 'bob' },
      },
    }),
  );
  return { app: recordingRoutes({ store, authenticator, recorder }), reads };
}

const get = (app: ReturnType<typeof routesUnderTest>['app'], runId: string, key: string) =>
  app.request(`/local/runs/${runId}/recording`, { headers: { authorization: `Bearer ${key}` } });

describe('recording routes: owners only', () => {
  it("refuses a delegated-jobs client's key with 403, reading nothing", async () => {
    const { app, reads } = routesUnderTest();
    const response = await get(app, 'run_alice000001', CLIENT_KEY);
    expect(response.status).toBe(403);
    expect(reads).toEqual([]);
  });

  it("serves the owner's recording", async () => {
    const { app } = routesUnderTest();
    expect((await get(app, 'run_alice000001', OWNER_KEY)).status).toBe(200);
  });

  it('answers a foreign run exactly as a missing one', async () => {
    const { app } = routesUnderTest();
    const foreign = await get(app, 'run_alice000001', OTHER_KEY);
    const missing = await get(app, 'run_missing00001', OTHER_KEY);
    expect(foreign.status).toBe(404);
    expect(await foreign.json()).toEqual(await missing.json());
  });
});

/** A loopback stand-in for the Messages API: streams one text answer naming the request's first user text. */
async function startUpstream(): Promise<{ server: Server; url: string; headers: string[][] }> {
  const headers: string[][] = [];
  const server = createServer((req, res) => {
    let raw = '';
    req.on('data', (chunk) => {
      raw += chunk;
    });
    req.on('end', () => {
      headers.push(Object.keys(req.headers));
      const body = JSON.parse(raw) as { messages: { content: string | { text?: string }[] }[] };
      const first = body.messages[0]?.content;
      const text = `answer to ${typeof first === 'string' ? first : (first?.[0]?.text ?? '')}`;
      const events = [
        {
          type: 'message_start',
          message: {
            id: 'msg_1',
            type: 'message',
            role: 'assistant',
            model: 'claude-test',
            content: [],
            stop_reason: null,
            usage: { input_tokens: 5, output_tokens: 0 },
          },
        },
        { type: 'content_block_start', index: 0, content_block: { type: 'text', text: '' } },
        { type: 'content_block_delta', index: 0, delta: { type: 'text_delta', text } },
        { type: 'content_block_stop', index: 0 },
        { type: 'message_delta', delta: { stop_reason: 'end_turn' }, usage: { output_tokens: 3 } },
        { type: 'message_stop' },
      ];
      res.writeHead(200, { 'content-type': 'text/event-stream' });
      res.end(events.map((e) => `event: ${e.type}\ndata: ${JSON.stringify(e)}\n\n`).join(''));
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', () => resolve()));
  return { server, url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, headers };
}

describe('recording routes: one run, one conversation (real proxy)', () => {
  const runs: Record<string, { runId: string; owner: string; workflowName: string }> = {
    run_alice000001: { runId: 'run_alice000001', owner: 'alice', workflowName: 'triage' },
    run_bob00000001: { runId: 'run_bob00000001', owner: 'bob', workflowName: 'triage' },
    run_bob00000002: { runId: 'run_bob00000002', owner: 'bob', workflowName: 'triage' },
  };
  let upstream: Awaited<ReturnType<typeof startUpstream>>;
  let proxy: RecordingProxy;
  let app: ReturnType<typeof recordingRoutes>;
  const call = (runId: string, system: string, input: string) => {
    const model = modelFor({ kind: 'anthropic', apiKey: 'test', baseURL: proxy.url, recording: true });
    const request: ModelRequest = {
      model: 'claude-test',
      system,
      messages: [{ role: 'user', content: [{ type: 'text', text: input }] }],
      tools: [],
      maxTokens: 100,
      thinking: 'off',
      workflow: 'triage',
      runId,
    };
    return model.call(request);
  };

  beforeAll(async () => {
    upstream = await startUpstream();
    proxy = await startRecordingProxy({ upstream: upstream.url });
    const store = { getRun: async (runId: string) => runs[runId] } as unknown as DynamoStore;
    const authenticator = apiKeyAuthenticator(
      JSON.stringify({ keys: { [OWNER_KEY]: { owner: 'alice' }, [OTHER_KEY]: { owner: 'bob' } } }),
    );
    app = recordingRoutes({ store, authenticator, recorder: proxy });
    await call('run_alice000001', 'Alice triage prompt', 'alice private input');
  });
  afterAll(async () => {
    await proxy.close();
    await new Promise((resolve) => upstream.server.close(resolve));
  });

  it("serves alice her own run's conversation", async () => {
    const response = await get(app, 'run_alice000001', OWNER_KEY);
    expect(response.status).toBe(200);
    const text = JSON.stringify(await response.json());
    expect(text).toContain('Alice triage prompt');
    expect(text).toContain('answer to alice private input');
  });

  it("never serves alice's conversation for bob's own run of a workflow with the same name", async () => {
    const unrecorded = await get(app, 'run_bob00000001', OTHER_KEY);
    expect(unrecorded.status).toBe(404);
    expect(JSON.stringify(await unrecorded.json())).not.toMatch(/alice/i);

    await call('run_bob00000002', 'Bob triage prompt', 'bob input');
    const recorded = await get(app, 'run_bob00000002', OTHER_KEY);
    expect(recorded.status).toBe(200);
    const text = JSON.stringify(await recorded.json());
    expect(text).toContain('Bob triage prompt');
    expect(text).not.toMatch(/alice/i);
    // Bob's later run of "triage" does not replace alice's recording either.
    expect(JSON.stringify(await (await get(app, 'run_alice000001', OWNER_KEY)).json())).toContain(
      'alice private input',
    );
  });

  it('forwards neither the fixture nor the run header to the API', () => {
    expect(upstream.headers.length).toBeGreaterThan(0);
    for (const names of upstream.headers) {
      expect(names).not.toContain('x-scripted-fixture');
      expect(names).not.toContain('x-recording-run');
    }
  });
});
