/**
 * The `ModelPort` on the Anthropic Messages API (`@anthropic-ai/sdk`): one call, one model turn.
 */
import { BaseAnthropic } from '@anthropic-ai/sdk/client';
import { Messages } from '@anthropic-ai/sdk/resources/messages/messages';
import type { ModelPort } from '../core/ports.ts';
import { clientOptions, type MessagesModelOptions, messagesModel } from './messages-port.ts';

export { DEFAULT_MODEL_TIMEOUT_MS } from './messages-port.ts';

export type AnthropicModelOptions = MessagesModelOptions & { apiKey: string };

/**
 * The SDK's client with the one resource the runtime calls. `Anthropic` (a `BaseAnthropic` with every
 * resource: beta, files, skills, models, …) would put ~320 KB more into the turn function's bundle;
 * `BaseAnthropic` is the SDK's own base for clients with a chosen set of resources.
 */
class MessagesClient extends BaseAnthropic {
  messages: Messages = new Messages(this);
}

/** A `ModelPort` that calls the Anthropic Messages API; failures are thrown as `ModelError`s. */
export function createAnthropicModel(options: AnthropicModelOptions): ModelPort {
  const client = new MessagesClient({
    apiKey: options.apiKey,
    ...clientOptions(options),
    ...(options.defaultHeaders === undefined ? {} : { defaultHeaders: options.defaultHeaders }),
  });
  return messagesModel(client, options);
}
