/**
 * Shared test helpers: a scripted server per test (closed afterwards) and an adapter pointed at it.
 */
import { onTestFinished } from 'vitest';
import type { Message, ModelRequest, ToolSpec } from '../../shared/core/ports.ts';
import { type AnthropicModelOptions, createAnthropicModel } from '../../shared/model/anthropic.ts';
import { createBedrockModel } from '../../shared/model/bedrock.ts';
import type { MessagesModelOptions } from '../../shared/model/messages-port.ts';
import type { ScriptedFixture } from '../../shared/model/scripted-fixture.ts';
import {
  type RecordedRequest,
  type ScriptedModelServer,
  startScriptedModelServer,
} from '../../shared/model/scripted-server.ts';

/**
 * A scripted server that is closed after the current test. The close is registered on the test itself
 * (`onTestFinished`), not by a top-level `afterEach`: a module-level hook would serve only the first file of a
 * worker that shares its module cache (test/setup/isolation.ts), so every importer had to run isolated.
 */
export async function scripted(fixtures: ScriptedFixture | ScriptedFixture[]): Promise<ScriptedModelServer> {
  const server = await startScriptedModelServer({ fixtures });
  onTestFinished(() => server.close());
  return server;
}

/** The providers whose SDK paths the model tests run through, against the same fixtures. */
export const PROVIDERS = ['anthropic', 'bedrock'] as const;
export type Provider = (typeof PROVIDERS)[number];

/** Static, fake AWS credentials: the Bedrock SDK signs with them; nothing leaves loopback. */
export const FAKE_AWS_CREDENTIALS = { accessKeyId: 'AKIDSCRIPTEDTEST', secretAccessKey: 'scripted-secret' };

/** A Bedrock model id of the same model `modelRequest()` names by default. */
export const BEDROCK_MODEL = 'us.anthropic.claude-sonnet-5-5-v1:0';

/** The real adapter of a provider, talking to the scripted server. */
export function modelOn(
  server: Pick<ScriptedModelServer, 'url'>,
  options: Partial<AnthropicModelOptions> & MessagesModelOptions = {},
  provider: Provider = 'anthropic',
) {
  if (provider === 'bedrock') {
    const { apiKey: _unused, ...rest } = options;
    return createBedrockModel({
      region: 'eu-west-3',
      credentials: FAKE_AWS_CREDENTIALS,
      baseURL: server.url,
      ...rest,
    });
  }
  return createAnthropicModel({ apiKey: 'test-key', baseURL: server.url, ...options });
}

/** The model id a test sends through a provider: Bedrock takes its own ids. */
export const modelIdFor = (provider: Provider, anthropicId = 'claude-sonnet-5-5') =>
  provider === 'bedrock' ? BEDROCK_MODEL : anthropicId;

/** Whether a recorded request asked for a stream (the Messages API's `stream`, Bedrock's path). */
export const streamed = (request: RecordedRequest | undefined): boolean =>
  request?.path.endsWith('/invoke-with-response-stream') === true ||
  (request?.body as { stream?: boolean } | undefined)?.stream === true;

export const lookupUser: ToolSpec = {
  name: 'lookup_user',
  description: 'Looks a user up by id.',
  inputSchema: { type: 'object', properties: { id: { type: 'string' } }, required: ['id'] },
};

export const sendEmail: ToolSpec = {
  name: 'send_email',
  description: 'Sends an email.',
  inputSchema: { type: 'object', properties: { to: { type: 'string' } } },
};

export function userText(text: string): Message {
  return { role: 'user', content: [{ type: 'text', text }] };
}

/** A model request with test defaults. */
export function modelRequest(overrides: Partial<ModelRequest> = {}): ModelRequest {
  return {
    model: 'claude-sonnet-5-5',
    system: 'You are a test assistant.',
    messages: [userText('Hi')],
    tools: [],
    maxTokens: 1024,
    thinking: 'off',
    ...overrides,
  };
}

/** POSTs a raw Messages-API body to the server (no SDK), for wire-level assertions. */
export async function postMessages(
  server: ScriptedModelServer,
  body: unknown,
  headers: Record<string, string> = {},
) {
  const response = await fetch(`${server.url}/v1/messages`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...headers },
    body: JSON.stringify(body),
  });
  return { status: response.status, headers: response.headers, text: await response.text() };
}
