import { describe, expect, it } from 'vitest';
import { ScriptedFixtureError } from '../../shared/model/errors.ts';
import { startScriptedModelServer } from '../../shared/model/scripted-server.ts';
import { postMessages, scripted } from './helpers.ts';

const user = (text: string) => ({ role: 'user', content: text });
const assistant = (text: string) => ({ role: 'assistant', content: [{ type: 'text', text }] });

/** A tool as the API accepts it: a name and an object input schema. */
const tool = (name: string) => ({ name, input_schema: { type: 'object' } });

function body(messages: unknown[], extra: Record<string, unknown> = {}) {
  return { model: 'claude-test', max_tokens: 100, messages, ...extra };
}

const twoTurns = {
  name: 'two',
  turns: [{ text: 'first answer' }, { text: 'second answer' }],
};

describe('startScriptedModelServer', () => {
  it('answers in the Messages API response shape', async () => {
    // Prepare
    const server = await scripted({
      name: 'shape',
      turns: [
        {
          response: {
            content: [{ type: 'tool_use', name: 'lookup', input: { q: 1 } }],
            usage: { input_tokens: 7 },
          },
        },
      ],
    });

    // Act
    const response = await postMessages(server, body([user('hi')]));

    // Assess
    expect(response.status).toBe(200);
    expect(JSON.parse(response.text)).toEqual({
      id: 'msg_scripted_shape_0',
      type: 'message',
      role: 'assistant',
      model: 'claude-test',
      content: [
        {
          type: 'tool_use',
          id: 'toolu_shape_0_0',
          name: 'lookup',
          input: { q: 1 },
          caller: { type: 'direct' },
        },
      ],
      stop_reason: 'tool_use',
      stop_sequence: null,
      stop_details: null,
      container: null,
      usage: {
        input_tokens: 7,
        cache_creation_input_tokens: 0,
        cache_read_input_tokens: 0,
        cache_creation: { ephemeral_5m_input_tokens: 0, ephemeral_1h_input_tokens: 0 },
        output_tokens: expect.any(Number),
        service_tier: 'standard',
      },
    });
  });

  it('serves the turn given by the number of assistant messages, the same for a repeated request', async () => {
    // Prepare
    const server = await scripted(twoTurns);
    const second = body([user('a'), assistant('first answer'), user('b')]);

    // Act
    const texts = [];
    for (const request of [body([user('a')]), second, second, body([user('other conversation')])]) {
      texts.push(JSON.parse((await postMessages(server, request)).text).content[0].text);
    }

    // Assess
    expect(texts).toEqual(['first answer', 'second answer', 'second answer', 'first answer']);
    expect(server.requests.map((request) => request.turn)).toEqual([0, 1, 1, 0]);
  });

  it('answers a request past the last turn with a clear 400 and records it', async () => {
    // Prepare
    const server = await scripted(twoTurns);

    // Act
    const response = await postMessages(
      server,
      body([user('a'), assistant('1'), user('b'), assistant('2'), user('c')]),
    );

    // Assess
    expect(response.status).toBe(400);
    expect(JSON.parse(response.text).error).toEqual({
      type: 'invalid_request_error',
      message:
        'scripted-model: fixture "two" has 2 turn(s), but the request holds 2 assistant message(s) (turn index 2)',
    });
    expect(server.failures.map((failure) => failure.kind)).toEqual(['turn']);
  });

  it('refuses a request carrying a lone surrogate with a 400, as the Messages API does, and records it', async () => {
    // Prepare: JSON.stringify writes a lone surrogate as an escape, as the SDK sends it
    // (the API: "The request body is not valid JSON: no low surrogate in string",
    // https://github.com/anthropics/claude-code/issues/1939)
    const server = await scripted(twoTurns);

    // Act
    const lone = await postMessages(server, body([user('half an emoji: \ud83d')]));
    const pair = await postMessages(server, body([user('a whole one: \u{1F600}')]));

    // Assess
    expect([lone.status, pair.status]).toEqual([400, 200]);
    expect(JSON.parse(lone.text).error).toEqual({
      type: 'invalid_request_error',
      message: expect.stringMatching(/^The request body is not valid JSON: no low surrogate in string/),
    });
    expect(server.failures.map((failure) => failure.kind)).toEqual(['request']);
  });

  it('selects a fixture with the x-scripted-fixture header and rejects a missing or unknown name', async () => {
    // Prepare
    const server = await scripted([
      { name: 'a', turns: [{ text: 'from a' }] },
      { name: 'b', turns: [{ text: 'from b' }] },
    ]);

    // Act
    const fromB = await postMessages(server, body([user('x')]), { 'x-scripted-fixture': 'b' });
    const missing = await postMessages(server, body([user('x')]));
    const unknown = await postMessages(server, body([user('x')]), { 'x-scripted-fixture': 'c' });

    // Assess
    expect(JSON.parse(fromB.text).content).toEqual([{ type: 'text', text: 'from b', citations: null }]);
    expect([missing.status, unknown.status]).toEqual([400, 400]);
    expect(JSON.parse(missing.text).error.message).toMatch(/several fixtures are served \(a, b\)/);
    expect(JSON.parse(unknown.text).error.message).toMatch(/no fixture named "c"/);
    expect(server.failures.map((failure) => failure.kind)).toEqual(['fixture', 'fixture']);
  });

  it('speaks SSE for streaming requests, ending with message_delta and message_stop', async () => {
    // Prepare
    const server = await scripted({ turns: [{ text: 'streamed' }] });

    // Act
    const response = await postMessages(server, body([user('x')], { stream: true }));

    // Assess
    expect(response.headers.get('content-type')).toBe('text/event-stream');
    const events = [...response.text.matchAll(/^event: (.+)$/gm)].map((match) => match[1]);
    expect(events).toEqual([
      'message_start',
      'ping',
      'content_block_start',
      'content_block_delta',
      'content_block_stop',
      'message_delta',
      'message_stop',
    ]);
    expect(response.text).toContain('"text_delta","text":"streamed"');
  });

  it.each([
    [{ tools: ['a', 'b'] }, { tools: [tool('b'), tool('a')] }, undefined],
    [{ tools: ['a'] }, { tools: [tool('a'), tool('b')] }, 'tools: expected [a], got [a, b]'],
    [{ toolsInclude: ['c'] }, { tools: [tool('a')] }, 'toolsInclude: not offered [c]'],
    [{ toolsExclude: ['a'] }, { tools: [tool('a')] }, 'toolsExclude: offered [a]'],
    [{ systemContains: 'policy' }, { system: [{ type: 'text', text: 'the policy' }] }, undefined],
    [{ systemContains: 'policy' }, { system: 'other' }, 'systemContains: system prompt lacks "policy"'],
    [{ lastUserContains: 'hello' }, {}, 'lastUserContains: last user message lacks "hello"'],
    [{ model: 'claude-x' }, {}, 'model: expected "claude-x", got "claude-test"'],
  ])('checks expect %j against %j', async (expectation, extra, problem) => {
    // Prepare
    const server = await scripted({ name: 'e', turns: [{ expect: expectation, text: 'ok' }] });

    // Act
    const response = await postMessages(server, body([user('hi there')], extra));

    // Assess
    if (problem === undefined) {
      expect(response.status).toBe(200);
      expect(server.failures).toEqual([]);
    } else {
      expect(response.status).toBe(400);
      expect(JSON.parse(response.text).error.message).toBe(
        `scripted-model expectation failed: fixture "e" turn 0: ${problem}`,
      );
    }
  });

  it.each([
    [{ toolUseId: 't1', contains: 'Ada' }, undefined],
    [{ toolName: 'lookup', contains: 'Ada', isError: false }, undefined],
    [
      { toolName: 'lookup', contains: 'Bob' },
      'toolResults: result for tool lookup lacks "Bob" (got "Ada Lovelace")',
    ],
    [
      { toolUseId: 't1', isError: true },
      'toolResults: result for tool_use t1 has is_error false, expected true',
    ],
    [{ toolName: 'send' }, 'toolResults: no tool_result for tool send'],
  ])('checks toolResults %j', async (expectation, problem) => {
    // Prepare
    const server = await scripted({
      name: 'r',
      turns: [{ text: 'go' }, { expect: { toolResults: [expectation] }, text: 'ok' }],
    });
    const messages = [
      user('hi'),
      { role: 'assistant', content: [{ type: 'tool_use', id: 't1', name: 'lookup', input: {} }] },
      {
        role: 'user',
        content: [
          { type: 'tool_result', tool_use_id: 't1', content: [{ type: 'text', text: 'Ada Lovelace' }] },
        ],
      },
    ];

    // Act
    const response = await postMessages(server, body(messages));

    // Assess
    const message = response.status === 200 ? undefined : JSON.parse(response.text).error.message;
    expect(message).toBe(problem && `scripted-model expectation failed: fixture "r" turn 1: ${problem}`);
  });

  it('keeps given tool-use ids and generates deterministic ones for the others', async () => {
    // Prepare
    const server = await scripted({
      name: 'ids',
      turns: [
        {
          response: {
            content: [
              { type: 'tool_use', id: 'toolu_mine', name: 'a' },
              { type: 'tool_use', name: 'b' },
            ],
          },
        },
      ],
    });

    // Act
    const response = await postMessages(server, body([user('x')]));

    // Assess
    expect(JSON.parse(response.text).content.map((block: { id: string }) => block.id)).toEqual([
      'toolu_mine',
      'toolu_ids_0_1',
    ]);
  });

  it('answers the text shorthand with end_turn and estimated usage', async () => {
    // Prepare
    const server = await scripted({ turns: [{ text: 'short' }] });

    // Act
    const message = JSON.parse((await postMessages(server, body([user('x')]))).text);

    // Assess
    expect(message.stop_reason).toBe('end_turn');
    expect(message.usage.input_tokens).toBeGreaterThan(0);
    expect(message.usage.output_tokens).toBeGreaterThan(0);
  });

  it('counts tokens on /v1/messages/count_tokens', async () => {
    // Prepare
    const server = await scripted({ turns: [{ text: 'x' }] });

    // Act
    const response = await fetch(`${server.url}/v1/messages/count_tokens`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify(body([user('count me')])),
    });

    // Assess
    expect(response.status).toBe(200);
    expect((await response.json()).input_tokens).toBeGreaterThan(0);
  });

  it('answers a body that is not a JSON object with a 400 and records it', async () => {
    // Prepare
    const server = await scripted({ turns: [{ text: 'x' }] });

    // Act
    const response = await fetch(`${server.url}/v1/messages`, { method: 'POST', body: '[1, 2' });

    // Assess
    expect(response.status).toBe(400);
    expect(server.failures).toEqual([
      {
        kind: 'request',
        fixture: undefined,
        turn: undefined,
        message: 'scripted-model: the request body is not a JSON object',
      },
    ]);
  });

  it('records requests with credentials redacted', async () => {
    // Prepare
    const server = await scripted({ turns: [{ text: 'x' }] });

    // Act
    await postMessages(server, body([user('x')]), { authorization: 'Bearer secret', 'x-api-key': 'secret' });

    // Assess
    expect(server.requests[0]?.headers).toMatchObject({
      authorization: '[redacted]',
      'x-api-key': '[redacted]',
    });
    expect(JSON.stringify(server.requests)).not.toContain('secret');
  });

  it.each([
    [{ turns: [] }, /fixture #0 is invalid/],
    [{ turns: [{ expect: {} }] }, /a turn needs text or response/],
    [[{ turns: [{ text: 'a' }] }, { turns: [{ text: 'b' }] }], /fixture #0 needs a name/],
    [
      [
        { name: 'x', turns: [{ text: 'a' }] },
        { name: 'x', turns: [{ text: 'b' }] },
      ],
      /two fixtures are named "x"/,
    ],
  ])('refuses to start with invalid fixtures %j', async (fixtures, message) => {
    // Act
    const start = startScriptedModelServer({ fixtures: fixtures as never });

    // Assess
    await expect(start).rejects.toThrow(ScriptedFixtureError);
    await expect(start).rejects.toThrow(message);
  });
});
