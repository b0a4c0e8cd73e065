/**
 * The `ModelPort` over any Messages-API client: `@anthropic-ai/sdk`'s `Anthropic` or
 * `@anthropic-ai/bedrock-sdk`'s `AnthropicBedrock`. Both take the same request body and return the same
 * message, so one call path (and one error mapping) serves both providers.
 */
import type Anthropic from '@anthropic-ai/sdk';
import type { ModelPort, ModelRequest, ModelResponse } from '../core/ports.ts';
import { fromMessage, toCreateParams } from './anthropic-mapping.ts';
import { toModelError } from './sdk-errors.ts';
import { type ThinkingStyle, thinkingParams, thinkingStyleFor } from './thinking.ts';

/** Default per-request timeout: 10 minutes, below Lambda's 15-minute ceiling. */
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
  /** Per-request timeout in milliseconds (default `DEFAULT_MODEL_TIMEOUT_MS`). */
  timeout?: number;
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
      const perRequest = headers ? { headers } : undefined;
      let message: Anthropic.Message;
      try {
        message = streaming
          ? await client.messages.stream(params, perRequest).finalMessage()
          : await client.messages.create({ ...params, stream: false }, perRequest);
      } catch (error) {
        throw toModelError(error);
      }
      return fromMessage(message);
    },
  };
}
