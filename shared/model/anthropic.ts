/**
 * The `ModelPort` on the Anthropic Messages API (`@anthropic-ai/sdk`): one call, one model turn.
 */
import Anthropic from '@anthropic-ai/sdk';
import type { ModelPort } from '../core/ports.ts';
import { clientOptions, type MessagesModelOptions, messagesModel } from './messages-port.ts';

export { DEFAULT_MODEL_TIMEOUT_MS } from './messages-port.ts';

export type AnthropicModelOptions = MessagesModelOptions & { apiKey: string };

/** A `ModelPort` that calls the Anthropic Messages API; failures are thrown as `ModelError`s. */
export function createAnthropicModel(options: AnthropicModelOptions): ModelPort {
  const client = new Anthropic({
    apiKey: options.apiKey,
    ...clientOptions(options),
    ...(options.defaultHeaders === undefined ? {} : { defaultHeaders: options.defaultHeaders }),
  });
  return messagesModel(client, options);
}
