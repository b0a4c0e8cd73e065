import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { describe, expect, it } from 'vitest';
import { createAnthropicModel } from '../../shared/model/anthropic.ts';
import { createBedrockModel } from '../../shared/model/bedrock.ts';
import {
  isRetryableModelError,
  ModelBadRequestError,
  ModelConnectionError,
  ModelError,
  ModelOverloadedError,
  ModelRateLimitedError,
  ModelServerError,
  RETRYABLE_MODEL_ERROR_NAMES,
} from '../../shared/model/errors.ts';
import {
  FAKE_AWS_CREDENTIALS,
  modelIdFor,
  modelOn,
  modelRequest,
  PROVIDERS,
  type Provider,
  scripted,
} from './helpers.ts';

async function callError(promise: Promise<unknown>): Promise<ModelError> {
  const error = await promise.then(
    () => undefined,
    (e: unknown) => e,
  );
  if (!(error instanceof ModelError)) throw new Error(`expected a ModelError, got ${String(error)}`);
  return error;
}

/** A port of the provider on a base URL (not necessarily a scripted server). */
function portAt(provider: Provider, baseURL: string, timeout?: number) {
  const common = { baseURL, ...(timeout === undefined ? {} : { timeout }) };
  return provider === 'bedrock'
    ? createBedrockModel({ region: 'us-east-1', credentials: FAKE_AWS_CREDENTIALS, ...common })
    : createAnthropicModel({ apiKey: 'k', ...common });
}

describe.each(PROVIDERS)('Model errors through the %s SDK', (provider) => {
  const request = () => modelRequest({ model: modelIdFor(provider) });

  it.each([
    [429, 'ModelRateLimitedError', true],
    [529, 'ModelOverloadedError', true],
    [500, 'ModelServerError', true],
    [503, 'ModelServerError', true],
    [400, 'ModelBadRequestError', false],
    [401, 'ModelAuthError', false],
    [403, 'ModelAuthError', false],
    [404, 'ModelNotFoundError', false],
  ])('turns a scripted %d into %s (retryable: %s)', async (status, name, retryable) => {
    // Prepare
    const server = await scripted({ turns: [{ error: { status } }] });

    // Act
    const error = await callError(modelOn(server, {}, provider).call(request()));

    // Assess
    expect(error.name).toBe(name);
    expect(error.status).toBe(status);
    expect(error.retryable).toBe(retryable);
    expect(isRetryableModelError(error)).toBe(retryable);
    expect(error.requestId).toMatch(/^req_scripted_/);
    expect(error.cause).toBeInstanceOf(Error);
  });

  it.each([
    ['overloaded_error', ModelOverloadedError],
    ['rate_limit_error', ModelRateLimitedError],
    ['api_error', ModelServerError],
  ] as const)('turns an %s event inside a stream into a retryable named error', async (type, ErrorClass) => {
    // Prepare
    const server = await scripted({ turns: [{ error: { status: 529, type, inStream: true } }] });

    // Act
    const error = await callError(modelOn(server, {}, provider).call(request()));

    // Assess
    expect(error).toBeInstanceOf(ErrorClass);
    expect(error.retryable).toBe(true);
    expect(error.type).toBe(type);
  });

  it('fails the first `times` attempts of a turn, then serves it (retries see the same conversation state)', async () => {
    // Prepare
    const server = await scripted({ turns: [{ error: { status: 529, times: 2 }, text: 'finally' }] });
    const model = modelOn(server, {}, provider);

    // Act
    const outcomes: string[] = [];
    for (let attempt = 0; attempt < 3; attempt++) {
      outcomes.push(
        await model.call(request()).then(
          (response) => (response.content[0] as { text: string }).text,
          (error: ModelError) => error.name,
        ),
      );
    }

    // Assess
    expect(outcomes).toEqual(['ModelOverloadedError', 'ModelOverloadedError', 'finally']);
  });

  it('throws a non-retryable ModelBadRequestError on an expectation mismatch and records the failure', async () => {
    // Prepare
    const server = await scripted({
      name: 'strict',
      turns: [{ expect: { tools: ['lookup_user'] }, text: 'no' }],
    });

    // Act
    const error = await callError(
      modelOn(server, {}, provider).call(modelRequest({ model: modelIdFor(provider), tools: [] })),
    );

    // Assess
    expect(error).toBeInstanceOf(ModelBadRequestError);
    expect(isRetryableModelError(error)).toBe(false);
    expect(error.message).toContain('scripted-model expectation failed:');
    expect(server.failures).toEqual([
      {
        kind: 'expectation',
        fixture: 'strict',
        turn: 0,
        message:
          'scripted-model expectation failed: fixture "strict" turn 0: tools: expected [lookup_user], got []',
      },
    ]);
  });

  it('turns a refused connection into a retryable ModelConnectionError', async () => {
    // Prepare: a port that was just free.
    const server = await scripted({ turns: [{ text: 'x' }] });
    const url = server.url;
    await server.close();

    // Act
    const error = await callError(portAt(provider, url).call(request()));

    // Assess
    expect(error).toBeInstanceOf(ModelConnectionError);
    expect(error.retryable).toBe(true);
  });

  it('turns a timeout into a retryable ModelConnectionError', async () => {
    // Prepare: a loopback server that never answers.
    const silent = createServer(() => {});
    await new Promise<void>((resolve) => silent.listen(0, '127.0.0.1', resolve));
    const { port } = silent.address() as AddressInfo;
    const model = portAt(provider, `http://127.0.0.1:${port}`, 200);

    // Act
    const error = await callError(model.call(request()));
    silent.closeAllConnections();
    silent.close();

    // Assess
    expect(error).toBeInstanceOf(ModelConnectionError);
    expect(error.retryable).toBe(true);
  });

  it('quotes at most 2,000 units of a huge error body, cut between emoji and well-formed', async () => {
    // Prepare: a loopback server answering 400 with a 300 KB body whose message is emoji (surrogate pairs),
    // the kind of text a Turn's thrown error would carry into the state machine's Cause.
    const message = '😀'.repeat(75_000);
    const body = JSON.stringify(
      provider === 'bedrock'
        ? { message }
        : { type: 'error', error: { type: 'invalid_request_error', message } },
    );
    const loud = createServer((_, res) => {
      res.writeHead(400, {
        'content-type': 'application/json',
        ...(provider === 'bedrock' ? { 'x-amzn-errortype': 'ValidationException' } : {}),
      });
      res.end(body);
    });
    await new Promise<void>((resolve) => loud.listen(0, '127.0.0.1', resolve));
    const { port } = loud.address() as AddressInfo;

    // Act
    const error = await callError(portAt(provider, `http://127.0.0.1:${port}`).call(request()));
    loud.close();

    // Assess
    expect(error).toBeInstanceOf(ModelBadRequestError);
    expect(error.message.startsWith('model API error: ')).toBe(true);
    expect(error.message.length).toBeLessThanOrEqual('model API error: '.length + 2000);
    expect(error.message).toContain('😀😀');
    expect(error.message.isWellFormed()).toBe(true);
  });
});

describe('Model error names', () => {
  it('lists exactly the names of the retryable error classes for Step Functions', () => {
    // Act
    const names = [
      new ModelRateLimitedError('x'),
      new ModelOverloadedError('x'),
      new ModelServerError('x'),
      new ModelConnectionError('x'),
      new ModelBadRequestError('x'),
    ]
      .filter(isRetryableModelError)
      .map((error) => error.name);

    // Assess
    expect(names).toEqual([...RETRYABLE_MODEL_ERROR_NAMES]);
    expect(isRetryableModelError(new Error('plain'))).toBe(false);
  });
});
