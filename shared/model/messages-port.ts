/**
 * The `ModelPort` over any Messages-API client: `@anthropic-ai/sdk`'s `Anthropic` or
 * `@anthropic-ai/bedrock-sdk`'s `AnthropicBedrock`. Both take the same request body and return the same
 * message, so one call path (and one error mapping) serves both providers.
 */
import type Anthropic from '@anthropic-ai/sdk';
import { APIUserAbortError } from '@anthropic-ai/sdk/core/error';
import type { ModelPort, ModelRequest, ModelResponse } from '../core/ports.ts';
import { fromMessage, toCreateParams } from './anthropic-mapping.ts';
import { callDeadline } from './call-deadline.ts';
import { toModelError } from './sdk-errors.ts';
import { type ThinkingStyle, thinkingParams, thinkingStyleFor } from './thinking.ts';

/**
 * Default bound of one call, from request to the stream's last event: 10 minutes, below Lambda's 15-minute
 * ceiling (https://docs.aws.amazon.com/lambda/latest/dg/configuration-timeout.html). It bounds the whole call,
 * streamed body included (call-deadline.ts), not only the wait for headers as the SDK's own `timeout` does.
 */
export const DEFAULT_MODEL_TIMEOUT_MS = 600_000;

/** The part of an SDK client the port uses. */
export type MessagesClient = { messages: Pick<Anthropic['messages'], 'create' | 'stream'> };

/** Options every provider's adapter takes. */
export type MessagesModelOptions = {
  /** Base URL, e.g. a scripted server's `url`. Defaults to the provider's own endpoint. */
  baseURL?: string;
  defaultHeaders?: Record<string, string>;
  /** Headers of one request, from the request (the recording proxy's run header, model-router.ts). */
  requestHeaders?: (request: ModelRequest) => Record<string, string>;
  /** SDK-level retries. Default 0: Step Functions owns retries (on the named errors). */
  maxRetries?: number;
  /** Bound of one whole call in milliseconds, streamed body included (default `DEFAULT_MODEL_TIMEOUT_MS`). */
  timeout?: number;
  /**
   * The milliseconds the caller still gives a call, read as each call starts: e.g. the Lambda invocation's
   * remaining time less a margin to commit (shared/runtime/invocation-deadline.ts). The call ends at the
   * sooner of this and `timeout` with a `ModelConnectionError`. Undefined: `timeout` alone.
   */
  callTimeLimitMs?: () => number | undefined;
  /**
   * Stream the response and assemble it (default true). Streaming keeps bytes flowing on long turns,
   * so idle-connection limits (e.g. a NAT gateway's) do not cut them off. `false` sends a plain JSON
   * request; the explicit timeout keeps the SDK from refusing large `max_tokens` values.
   */
  streaming?: boolean;
  /** Thinking parameter style; `auto` (default) decides per model id (see thinking.ts). */
  thinkingStyle?: ThinkingStyle | 'auto';
};

/** The SDK client options these adapter options imply (shared by both providers). */
export function clientOptions(options: MessagesModelOptions) {
  return {
    maxRetries: options.maxRetries ?? 0,
    timeout: options.timeout ?? DEFAULT_MODEL_TIMEOUT_MS,
    ...(options.baseURL === undefined ? {} : { baseURL: options.baseURL }),
  };
}

/**
 * A `ModelPort` on a Messages-API client; failures are thrown as `ModelError`s. `check` runs before each
 * call and may throw (a provider's own refusal of a request it cannot serve).
 */
export function messagesModel(
  client: MessagesClient,
  options: MessagesModelOptions,
  check: (request: ModelRequest) => void = () => {},
): ModelPort {
  const streaming = options.streaming ?? true;
  const styleOption = options.thinkingStyle ?? 'auto';
  const styleOf = (request: ModelRequest) =>
    styleOption === 'auto' ? thinkingStyleFor(request.model) : styleOption;
  return {
    maxOutputTokens: (request) =>
      thinkingParams(request.thinking, request.maxTokens, styleOf(request)).max_tokens,
    async call(request: ModelRequest): Promise<ModelResponse> {
      check(request);
      const style = styleOf(request);
      const params = toCreateParams(request, style);
      const headers = options.requestHeaders?.(request);
      const timeout = options.timeout ?? DEFAULT_MODEL_TIMEOUT_MS;
      const deadline = callDeadline(Math.min(timeout, options.callTimeLimitMs?.() ?? timeout));
      const perRequest = { signal: deadline.signal, ...(headers ? { headers } : {}) };
      let message: Anthropic.Message;
      try {
        const expired = deadline.expired();
        if (expired) throw expired;
        message = streaming
          ? await client.messages.stream(params, perRequest).finalMessage()
          : await client.messages.create({ ...params, stream: false }, perRequest);
      } catch (error) {
        // The deadline's abort surfaces from the SDK as a user abort: name it for what it is. Any other
        // error (an answer that raced the deadline) keeps its own class.
        const expired = error instanceof APIUserAbortError ? deadline.expired() : undefined;
        throw expired ?? toModelError(error);
      } finally {
        deadline.clear();
      }
      return fromMessage(message);
    },
  };
}
