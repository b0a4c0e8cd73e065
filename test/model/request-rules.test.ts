/**
 * The scripted server refuses what the real Messages API refuses (shared/model/scripted-request-rules.ts,
 * docs/scripted-model.md "Request rules"): each rule refuses a breaking request with a 400
 * `invalid_request_error` naming the field, recorded as a `request` failure, and accepts its boundary case.
 */
import { describe, expect, it } from 'vitest';
import { BEDROCK_MODEL, postMessages, scripted } from './helpers.ts';

type Json = Record<string, unknown>;

const user = (content: unknown) => ({ role: 'user', content });
const assistant = (content: unknown) => ({ role: 'assistant', content });
const text = (value: string) => ({ type: 'text', text: value });
const toolUse = (id: string, name = 'lookup') => ({ type: 'tool_use', id, name, input: {} });
const toolResult = (id: string, content: unknown = 'done') => ({
  type: 'tool_result',
  tool_use_id: id,
  content,
});
const tool = (name: string, schema: unknown = { type: 'object' }) => ({ name, input_schema: schema });

/** A request the API accepts, with `overrides` on top. */
const request = (overrides: Json = {}): Json => ({
  model: 'claude-test',
  max_tokens: 2048,
  messages: [user('hi')],
  ...overrides,
});

/** A conversation after one tool call: the call, then its result. */
const afterCall = (result: unknown[]) => [user('hi'), assistant([toolUse('t1')]), user(result)];

// [rule, refused request, the field and reason the answer names, the accepted boundary case]
const RULES: [string, Json, string, Json][] = [
  ['max_tokens is required', { max_tokens: undefined }, 'max_tokens: Field required', { max_tokens: 0 }],
  [
    'max_tokens is a non-negative integer',
    { max_tokens: -1 },
    'max_tokens: Input should be greater than or equal to 0',
    { max_tokens: 1 },
  ],
  [
    'max_tokens is an integer',
    { max_tokens: 10.5 },
    'max_tokens: Input should be a valid integer',
    { max_tokens: 10 },
  ],
  [
    'messages are not empty',
    { messages: [] },
    'messages: at least one message is required',
    { messages: [user('x')] },
  ],
  [
    'a role is user or assistant',
    { messages: [{ role: 'system', content: 'x' }] },
    "messages.0.role: Input should be 'user' or 'assistant'",
    { messages: [user('x'), user('consecutive turns are combined, not refused')] },
  ],
  [
    'only a final assistant message may be empty',
    { messages: [user('a'), assistant([]), user('b')] },
    'messages.1: all messages must have non-empty content except for the optional final assistant message',
    { messages: [user('a'), assistant([])] },
  ],
  [
    'a text block is not empty',
    { messages: [user([text('a'), text('')])] },
    'messages.0.content.1: text content blocks must be non-empty',
    { messages: [user([text('a'), text('.')])] },
  ],
  [
    'a text block is not only whitespace',
    { messages: [user('a'), assistant([text(' \n'), toolUse('t1')]), user([toolResult('t1')])] },
    'messages.1.content.0: text content blocks must contain non-whitespace text',
    { messages: [user('a'), assistant([text(' x\n'), toolUse('t1')]), user([toolResult('t1')])] },
  ],
  [
    "a tool_result's text block is not empty",
    { messages: afterCall([toolResult('t1', [text('')])]) },
    'messages.2.content.0.content.0: text content blocks must be non-empty',
    { messages: afterCall([toolResult('t1', '')]) },
  ],
  [
    'a final assistant message (prefill) does not end with whitespace',
    { messages: [user('a'), assistant('The answer is ')] },
    'messages.1: final assistant content cannot end with trailing whitespace',
    { messages: [user('a'), assistant('The answer is'), user('b ')] },
  ],
  [
    'a tool name matches ^[a-zA-Z0-9_-]{1,64}$',
    { tools: [tool('notes.put')] },
    "tools.0.custom.name: String should match pattern '^[a-zA-Z0-9_-]{1,64}$'",
    { tools: [tool(`a-Z_0${'x'.repeat(59)}`)] },
  ],
  [
    'a tool name has at most 64 characters',
    { tools: [tool('x'.repeat(65))] },
    "tools.0.custom.name: String should match pattern '^[a-zA-Z0-9_-]{1,64}$'",
    { tools: [tool('x'.repeat(64))] },
  ],
  [
    'tool names are unique',
    { tools: [tool('a'), tool('b'), tool('a')] },
    'tools: Tool names must be unique.',
    { tools: [tool('a'), tool('b')] },
  ],
  [
    "a tool's input_schema is an object schema",
    { tools: [tool('a', { type: 'string' })] },
    "tools.0.custom.input_schema.type: Input should be 'object'",
    { tools: [tool('a', { type: 'object', properties: {} }), { type: 'bash_20250124', name: 'bash' }] },
  ],
  [
    'every tool_use is answered in the next message',
    { messages: [user('a'), assistant([toolUse('t1'), toolUse('t2')]), user([toolResult('t1')])] },
    'messages.1: `tool_use` ids were found without `tool_result` blocks immediately after: t2.',
    {
      messages: [
        user('a'),
        assistant([toolUse('t1'), toolUse('t2')]),
        user([toolResult('t2'), toolResult('t1')]),
      ],
    },
  ],
  [
    'no message comes between a tool_use and its result',
    {
      messages: [
        user('a'),
        assistant([toolUse('t1')]),
        user('wait'),
        assistant('ok'),
        user([toolResult('t1')]),
      ],
    },
    'messages.1: `tool_use` ids were found without `tool_result` blocks immediately after: t1.',
    { messages: [user('a'), assistant([toolUse('t1')]), user([toolResult('t1')]), user('then this')] },
  ],
  [
    'tool_result blocks come first',
    { messages: afterCall([text('Here it is:'), toolResult('t1')]) },
    'messages.2.content.1: tool_result blocks must come first in the content array',
    { messages: afterCall([toolResult('t1'), text('What next?')]) },
  ],
  [
    'a tool_result answers a tool_use of the previous message',
    { messages: [user('a'), assistant([toolUse('t1')]), user([toolResult('t1'), toolResult('t9')])] },
    'messages.2.content.1: unexpected `tool_use_id` found in `tool_result` blocks: t9.',
    { messages: afterCall([toolResult('t1')]) },
  ],
  [
    'an error tool_result has content',
    { messages: afterCall([{ ...toolResult('t1', ''), is_error: true }]) },
    'messages.2.content.0.tool_result: content cannot be empty if `is_error` is true',
    { messages: afterCall([{ ...toolResult('t1', '.'), is_error: true }]) },
  ],
  [
    'a tool_use id matches ^[a-zA-Z0-9_-]+$',
    { messages: [user('a'), assistant([toolUse('call:1')]), user([toolResult('call:1')])] },
    "messages.1.content.0.tool_use.id: String should match pattern '^[a-zA-Z0-9_-]+$'",
    { messages: [user('a'), assistant([toolUse('call_1-A')]), user([toolResult('call_1-A')])] },
  ],
  [
    'tool_use ids are unique',
    {
      messages: [...afterCall([toolResult('t1')]), assistant([toolUse('t1')]), user([toolResult('t1')])],
    },
    'messages.3.content.0: `tool_use` ids must be unique',
    { messages: [...afterCall([toolResult('t1')]), assistant([toolUse('t2')]), user([toolResult('t2')])] },
  ],
  [
    'a thinking budget is at least 1024',
    { thinking: { type: 'enabled', budget_tokens: 1023 } },
    'thinking.enabled.budget_tokens: Input should be greater than or equal to 1024',
    { thinking: { type: 'enabled', budget_tokens: 1024 } },
  ],
  [
    'a thinking budget is less than max_tokens',
    { thinking: { type: 'enabled', budget_tokens: 2048 } },
    'max_tokens: `max_tokens` must be greater than `thinking.budget_tokens`',
    { thinking: { type: 'enabled', budget_tokens: 2047 } },
  ],
  [
    'thinking does not combine with a forced tool choice',
    { thinking: { type: 'enabled', budget_tokens: 1024 }, tools: [tool('a')], tool_choice: { type: 'any' } },
    'tool_choice: Thinking may not be enabled when tool_choice forces tool use.',
    { thinking: { type: 'enabled', budget_tokens: 1024 }, tools: [tool('a')], tool_choice: { type: 'auto' } },
  ],
];

describe('Request rules of the scripted server', () => {
  it.each(RULES)('%s: refuses the request, naming the field', async (_rule, refused, problem) => {
    // Prepare
    const server = await scripted({ turns: [{ text: 'ok' }, { text: 'ok' }, { text: 'ok' }] });

    // Act
    const response = await postMessages(server, request(refused));

    // Assess
    expect(response.status).toBe(400);
    const error = JSON.parse(response.text).error;
    expect(error.type).toBe('invalid_request_error');
    expect(error.message).toContain(problem);
    expect(server.failures).toEqual([
      { kind: 'request', fixture: undefined, turn: undefined, message: error.message },
    ]);
  });

  it.each(RULES)('%s: accepts the boundary case', async (_rule, _refused, _problem, accepted) => {
    // Prepare
    const server = await scripted({ turns: [{ text: 'ok' }, { text: 'ok' }, { text: 'ok' }] });

    // Act
    const response = await postMessages(server, request(accepted));

    // Assess
    expect(server.failures).toEqual([]);
    expect(response.status).toBe(200);
  });

  it('lets an interleaved-thinking budget exceed max_tokens, as the beta allows', async () => {
    // Prepare
    const server = await scripted({ turns: [{ text: 'ok' }] });
    const interleaved = request({ max_tokens: 1024, thinking: { type: 'enabled', budget_tokens: 4096 } });

    // Act
    const response = await postMessages(server, interleaved, {
      'anthropic-beta': 'other-beta, interleaved-thinking-2025-05-14',
    });

    // Assess
    expect(server.failures).toEqual([]);
    expect(response.status).toBe(200);
  });

  it('names every problem of a request, separated by "; "', async () => {
    // Prepare
    const server = await scripted({ turns: [{ text: 'ok' }] });

    // Act
    const response = await postMessages(server, request({ max_tokens: undefined, messages: [user('')] }));

    // Assess
    expect(JSON.parse(response.text).error.message).toBe(
      'max_tokens: Field required; messages.0: all messages must have non-empty content except for the optional final assistant message',
    );
  });

  it('applies the same rules to Bedrock once its envelope is mapped, as a ValidationException', async () => {
    // Prepare
    const server = await scripted({ turns: [{ text: 'ok' }] });
    const { model: _model, ...bedrockBody } = request({ tools: [tool('notes.put')] });

    // Act
    const response = await fetch(`${server.url}/model/${BEDROCK_MODEL}/invoke`, {
      method: 'POST',
      headers: {
        'content-type': 'application/json',
        authorization:
          'AWS4-HMAC-SHA256 Credential=AKID/20261204/us-east-1/bedrock/aws4_request, Signature=x',
      },
      body: JSON.stringify({ ...bedrockBody, anthropic_version: 'bedrock-2023-05-31' }),
    });

    // Assess
    expect(response.status).toBe(400);
    expect(response.headers.get('x-amzn-errortype')).toMatch(/^ValidationException:/);
    expect(((await response.json()) as { message: string }).message).toBe(
      "tools.0.custom.name: String should match pattern '^[a-zA-Z0-9_-]{1,64}$'",
    );
    expect(server.failures).toMatchObject([{ kind: 'request' }]);
  });

  it("reads Bedrock's interleaved-thinking beta from the body's anthropic_beta", async () => {
    // Prepare
    const server = await scripted({ turns: [{ text: 'ok' }] });
    const { model: _model, ...bedrockBody } = request({
      max_tokens: 1024,
      thinking: { type: 'enabled', budget_tokens: 4096 },
      anthropic_beta: ['interleaved-thinking-2025-05-14'],
    });

    // Act
    const response = await fetch(`${server.url}/model/${BEDROCK_MODEL}/invoke`, {
      method: 'POST',
      headers: {
        'content-type': 'application/json',
        authorization:
          'AWS4-HMAC-SHA256 Credential=AKID/20261204/us-east-1/bedrock/aws4_request, Signature=x',
      },
      body: JSON.stringify({ ...bedrockBody, anthropic_version: 'bedrock-2023-05-31' }),
    });

    // Assess
    expect(server.failures).toEqual([]);
    expect(response.status).toBe(200);
  });
});
