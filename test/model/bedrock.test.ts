/** What is Bedrock's own: the wire mapping, IAM signing, model ids and error shapes. */
import { APIError } from '@anthropic-ai/sdk';
import { describe, expect, it } from 'vitest';
import { createBedrockModel } from '../../shared/model/bedrock.ts';
import {
  ModelBadRequestError,
  ModelConfigError,
  ModelConnectionError,
  ModelRateLimitedError,
  ModelServerError,
} from '../../shared/model/errors.ts';
import { decodeEventStream } from '../../shared/model/scripted-eventstream.ts';
import { toModelError } from '../../shared/model/sdk-errors.ts';
import { BEDROCK_MODEL, FAKE_AWS_CREDENTIALS, modelOn, modelRequest, scripted } from './helpers.ts';

const validBody = {
  anthropic_version: 'bedrock-2023-05-31',
  max_tokens: 100,
  messages: [{ role: 'user', content: 'Hi' }],
};

describe('Function: createBedrockModel', () => {
  it.each([
    [true, `/model/${BEDROCK_MODEL}/invoke-with-response-stream`],
    [false, `/model/${BEDROCK_MODEL}/invoke`],
  ])(
    'puts the model in the path and anthropic_version in the body (streaming: %s)',
    async (streaming, path) => {
      // Prepare
      const server = await scripted({ turns: [{ expect: { model: BEDROCK_MODEL }, text: 'hi' }] });

      // Act
      await modelOn(server, { streaming }, 'bedrock').call(modelRequest({ model: BEDROCK_MODEL }));

      // Assess
      expect(server.failures).toEqual([]);
      const [request] = server.requests;
      expect(request?.path).toBe(path);
      expect(request?.body).toMatchObject({ anthropic_version: 'bedrock-2023-05-31', max_tokens: 1024 });
      expect(request?.body).not.toHaveProperty('model');
      expect(request?.body).not.toHaveProperty('stream');
    },
  );

  it('signs with SigV4 for the bedrock service in the configured region, and sends no API key', async () => {
    // Prepare
    const server = await scripted({ turns: [{ text: 'hi' }] });

    // Act
    await modelOn(server, {}, 'bedrock').call(modelRequest({ model: BEDROCK_MODEL }));

    // Assess
    const headers = server.requests[0]?.headers ?? {};
    expect(headers.authorization).toMatch(
      /^AWS4-HMAC-SHA256 Credential=\[redacted\]\/\d{8}\/eu-west-3\/bedrock\/aws4_request,/,
    );
    expect(headers).not.toHaveProperty('x-api-key');
    expect(headers).not.toHaveProperty('anthropic-version');
  });

  it.each(['claude-sonnet-4-5', 'fast'])(
    'refuses the non-Bedrock model id %s with a ModelConfigError, before any request',
    async (model) => {
      // Prepare
      const server = await scripted({ turns: [{ text: 'hi' }] });

      // Act
      const error = await modelOn(server, {}, 'bedrock')
        .call(modelRequest({ model }))
        .catch((e: unknown) => e);

      // Assess
      expect(error).toBeInstanceOf(ModelConfigError);
      expect((error as Error).message).toContain(`model '${model}' is not a Bedrock model id`);
      expect(server.requests).toEqual([]);
    },
  );

  it('refuses an empty region instead of defaulting to one', () => {
    expect(() => createBedrockModel({ region: ' ', credentials: FAKE_AWS_CREDENTIALS })).toThrow(
      ModelConfigError,
    );
  });
});

describe('Scripted server: Bedrock paths', () => {
  it.each([
    [{}, validBody, 'not SigV4-signed for the bedrock service'],
    [
      {
        authorization:
          'AWS4-HMAC-SHA256 Credential=AKID/20261201/us-east-1/bedrock/aws4_request, Signature=x',
      },
      { ...validBody, anthropic_version: '2023-06-01' },
      'anthropic_version: expected "bedrock-2023-05-31", got "2023-06-01"',
    ],
    [
      {
        authorization:
          'AWS4-HMAC-SHA256 Credential=AKID/20261201/us-east-1/bedrock/aws4_request, Signature=x',
      },
      { ...validBody, model: 'claude-sonnet-4-5' },
      'extraneous key [model] is not permitted',
    ],
  ])('refuses a request Bedrock would refuse, as a ValidationException', async (headers, body, problem) => {
    // Prepare
    const server = await scripted({ turns: [{ text: 'hi' }] });

    // Act
    const response = await fetch(`${server.url}/model/${BEDROCK_MODEL}/invoke`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', ...headers },
      body: JSON.stringify(body),
    });

    // Assess
    expect(response.status).toBe(400);
    expect(response.headers.get('x-amzn-errortype')).toMatch(/^ValidationException:/);
    expect(((await response.json()) as { message: string }).message).toContain(problem);
    expect(server.failures).toMatchObject([{ kind: 'request' }]);
  });

  it('streams chunk events whose bytes are the base64 of the Messages-API stream events', async () => {
    // Prepare
    const server = await scripted({ turns: [{ text: 'hello' }] });
    const signed = 'AWS4-HMAC-SHA256 Credential=AKID/20261201/us-east-1/bedrock/aws4_request, Signature=x';

    // Act
    const response = await fetch(`${server.url}/model/${BEDROCK_MODEL}/invoke-with-response-stream`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: signed },
      body: JSON.stringify(validBody),
    });
    const messages = decodeEventStream(new Uint8Array(await response.arrayBuffer()));

    // Assess
    expect(response.headers.get('content-type')).toBe('application/vnd.amazon.eventstream');
    expect(messages.every((m) => m.headers[':event-type'] === 'chunk')).toBe(true);
    expect(messages.every((m) => m.headers[':message-type'] === 'event')).toBe(true);
    const events = messages.map(
      (m) =>
        JSON.parse(
          Buffer.from((JSON.parse(m.body) as { bytes: string }).bytes, 'base64').toString('utf8'),
        ) as {
          type: string;
        },
    );
    expect(events.map((event) => event.type)).toEqual([
      'message_start',
      'ping',
      'content_block_start',
      'content_block_delta',
      'content_block_stop',
      'message_delta',
      'message_stop',
    ]);
    expect(events[3]).toMatchObject({ delta: { type: 'text_delta', text: 'hello' } });
  });

  it('answers an HTTP error in Bedrock shape: {message} and the exception in x-amzn-errortype', async () => {
    // Prepare
    const server = await scripted({ turns: [{ error: { status: 429, message: 'slow down' } }] });

    // Act
    const error = await modelOn(server, {}, 'bedrock')
      .call(modelRequest({ model: BEDROCK_MODEL }))
      .catch((e: unknown) => e);

    // Assess
    expect(error).toBeInstanceOf(ModelRateLimitedError);
    expect(error).toMatchObject({ status: 429, type: 'ThrottlingException', requestId: 'req_scripted_1' });
  });
});

describe('Function: toModelError (Bedrock stream exceptions)', () => {
  it.each([
    ['throttlingException', ModelRateLimitedError],
    ['serviceUnavailableException', ModelServerError],
    ['internalServerException', ModelServerError],
    ['modelStreamErrorException', ModelServerError],
    ['modelTimeoutException', ModelConnectionError],
    ['validationException', ModelBadRequestError],
  ] as const)('classifies a mid-stream %s', (type, ErrorClass) => {
    // Prepare: how the SDK reports an SSE `error` event it transcoded from an exception frame.
    const thrown = new APIError(undefined, { type: 'error', error: { type } }, undefined, undefined);

    // Act
    const error = toModelError(thrown);

    // Assess
    expect(error).toBeInstanceOf(ErrorClass);
    expect(error.type).toBe(type);
  });
});
