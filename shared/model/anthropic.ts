/**
 * The `ModelPort` on the Anthropic Messages API (`@anthropic-ai/sdk`): one call, one model turn.
 */
import Anthropic from '@anthropic-ai/sdk';
import type { ModelPort, ModelRequest, ModelResponse } from '../core/ports.ts';
import { fromMessage, toCreateParams } from './anthropic-mapping.ts';
import { toModelError } from './sdk-errors.ts';
import { type ThinkingStyle, thinkingStyleFor } from './thinking.ts';

/** Default per-request timeout: 10 minutes, below Lambda's 15-minute ceiling. */
export const DEFAULT_MODEL_TIMEOUT_MS = 600_000;

export type AnthropicModelOptions = {
  apiKey: string;
  /** API base URL, e.g. a scripted server's `url`. Defaults to the SDK's (api.anthropic.com). */
  baseURL?: string;
  defaultHeaders?: Record<string, string>;
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

/** A `ModelPort` that calls the Anthropic Messages API; failures are thrown as `ModelError`s. */
export function createAnthropicModel(options: AnthropicModelOptions): ModelPort {
  const client = new Anthropic({
    apiKey: options.apiKey,
    maxRetries: options.maxRetries ?? 0,
    timeout: options.timeout ?? DEFAULT_MODEL_TIMEOUT_MS,
    ...(options.baseURL === undefined ? {} : { baseURL: options.baseURL }),
    ...(options.defaultHeaders === undefined ? {} : { defaultHeaders: options.defaultHeaders }),
  });
  const streaming = options.streaming ?? true;
  const styleOption = options.thinkingStyle ?? 'auto';

  return {
    async call(request: ModelRequest): Promise<ModelResponse> {
      const style = styleOption === 'auto' ? thinkingStyleFor(request.model) : styleOption;
      const params = toCreateParams(request, style);
      let message: Anthropic.Message;
      try {
        message = streaming
          ? await client.messages.stream(params).finalMessage()
          : await client.messages.create({ ...params, stream: false });
      } catch (error) {
        throw toModelError(error);
      }
      return fromMessage(message);
    },
  };
}
