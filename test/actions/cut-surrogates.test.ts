/**
 * A page body cut to the tool result's character cap, with an emoji straddling the cap. The cut kept the
 * emoji's high half alone: the lone surrogate was stored in the ledger and the transcript, and sent to the model,
 * which the Messages API refuses (HTTP 400 "no low surrogate in string"; the scripted server answers it so), so
 * the run failed. The cut now ends before the pair. Through a whole run: a real loopback server, the egress guard,
 * DynamoDB Local, and the real Anthropic SDK against the scripted server. The other HTTP actions that cut a body
 * (http_request, the signed-webhook connector) are checked directly.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { connectorActions, DEFAULT_MAX_TEXT_CHARS, httpRequestAction } from '../../shared/actions/index.ts';
import { verifyAuditChain } from '../../shared/audit/index.ts';
import { createEgress } from '../../shared/egress/index.ts';
import { createAnthropicModel, startScriptedModelServer } from '../../shared/model/index.ts';
import { driveRun, engineDeps } from '../support/engine.ts';
import { minimalWorkflow, seedRun, seedWorkflow, testStore } from '../support/store.ts';
import {
  actionContext,
  definitionWith,
  type FakeRemote,
  fakeRemote,
  runParsed,
  secretsFile,
} from './support.ts';

const store = testStore();
const EMOJI = '\u{1F600}';
/** After the 'x', every emoji starts at an odd index: an even cap (20,000; 2,000) falls inside one. */
const BODY = `x${EMOJI.repeat(12_000)}`;

let remote: FakeRemote;
let server: Awaited<ReturnType<typeof startScriptedModelServer>>;
beforeAll(async () => {
  remote = await fakeRemote((request) =>
    request.path.endsWith('/issues')
      ? // GitHub's error JSON, its message carrying a lone surrogate as an escape (JSON allows it)
        {
          status: 422,
          headers: { 'content-type': 'application/json' },
          body: '{"message":"bad \\ud83d title"}',
        }
      : {
          status: request.path === '/refused' ? 422 : 200,
          headers: { 'content-type': 'text/plain; charset=utf-8' },
          body: BODY,
        },
  );
  server = await startScriptedModelServer({
    fixtures: [
      {
        name: 'read-page',
        turns: [
          {
            response: {
              content: [{ type: 'tool_use', name: 'fetch_url', input: { url: `${remote.origin}/emoji` } }],
            },
          },
          {
            expect: { toolResults: [{ toolName: 'fetch_url', contains: '[truncated', isError: false }] },
            text: 'The page is all smiles.',
          },
        ],
      },
    ],
  });
});
afterAll(async () => {
  await server.close();
  await remote.close();
});

describe('fetch_url with an emoji straddling the character cap', () => {
  it('cuts before the pair, so the run stores and sends well-formed text and ends done', async () => {
    // Prepare
    const { version } = await seedWorkflow(store, minimalWorkflow({ allowedActions: ['fetch_url'] }));
    const run = await seedRun(store, version);
    const model = createAnthropicModel({
      apiKey: 'scripted',
      baseURL: server.url,
      defaultHeaders: { 'x-scripted-fixture': 'read-page' },
      maxRetries: 0,
    });
    const deps = engineDeps(store, model, { egress: createEgress({ allowLoopbackPorts: [remote.port] }) });

    // Act
    const outcomes = await driveRun(deps, run.runId);

    // Assess: the model was never refused and the run ended as scripted
    expect(server.failures).toEqual([]);
    expect(outcomes.at(-1)?.next).toBe('done');
    expect(await store.getRun(run.runId)).toMatchObject({ status: 'done', stopReason: 'end_turn' });
    // What was stored (ledger, transcript) and what the model was sent is the page up to the last whole emoji
    const [row] = await store.listLedger(run.runId);
    const shown = `x${EMOJI.repeat(9_999)}\n[truncated: showing the first 19999 of 24001 characters]`;
    expect(row?.outcome?.content.endsWith(shown)).toBe(true);
    const results = (await store.listMessages(run.runId)).flatMap((message) =>
      message.content.flatMap((block) => (block.type === 'tool_result' ? [block.content] : [])),
    );
    expect(results).toEqual([row?.outcome?.content]);
    const sent = JSON.stringify(server.requests.at(-1)?.body);
    expect(sent).toContain(`${EMOJI}\\n[truncated: showing the first 19999`);
    expect(
      verifyAuditChain(await store.listAudit(run.runId), { owner: run.owner, runId: run.runId }),
    ).toMatchObject({ ok: true });
  });
});

describe('the other HTTP actions that cut a body', () => {
  const context = () =>
    actionContext({ ports: [remote.port], secrets: secretsFile({ 'wf/owner-test/hook-key': 'k' }) });

  it('http_request cuts before the pair', async () => {
    const outcome = await runParsed(
      httpRequestAction(definitionWith({})),
      { method: 'GET', url: `${remote.origin}/emoji` },
      context(),
    );
    expect(outcome.content.isWellFormed()).toBe(true);
    expect(outcome.content).toContain(
      `${EMOJI}\n[truncated: showing the first ${DEFAULT_MAX_TEXT_CHARS - 1} of 24001 characters]`,
    );
  });

  it('the signed-webhook connector cuts an error answer before the pair', async () => {
    const definition = definitionWith({
      allowedActions: ['notify_hook'],
      connectors: {
        notify_hook: {
          kind: 'signed_webhook',
          url: `${remote.origin}/refused`,
          credential: { slot: 'hook_key' },
        },
      },
      credRefs: { hook_key: { secret: 'wf/owner-test/hook-key' } },
    });
    const action = connectorActions()('notify_hook', definition.connectors.notify_hook!, definition);
    const outcome = await runParsed(action, { event: 'ping' }, context());
    expect(outcome.content.isWellFormed()).toBe(true);
    expect(outcome.content).toContain(`${EMOJI}\n[truncated: showing the first 1999 of 24001 characters]`);
  });

  it('the GitHub connector answers a lone surrogate in the error JSON with U+FFFD', async () => {
    const definition = definitionWith({
      allowedActions: ['file_issue'],
      connectors: {
        file_issue: {
          kind: 'github_create_issue',
          repo: 'example-org/example-repo',
          credential: { slot: 'hook_key' },
          apiBaseUrl: remote.origin,
        },
      },
      credRefs: { hook_key: { secret: 'wf/owner-test/hook-key' } },
    });
    const action = connectorActions()('file_issue', definition.connectors.file_issue!, definition);
    const outcome = await runParsed(action, { title: 'A title', body: 'x' }, context());
    expect(outcome).toEqual({ content: 'GitHub answered HTTP 422: bad \ufffd title', isError: true });
  });
});
