/**
 * The `ModelPort` on Amazon Bedrock (`@anthropic-ai/bedrock-sdk`): the same Messages-API body, sent to
 * `InvokeModel` / `InvokeModelWithResponseStream` with SigV4 signatures from IAM credentials (never a key).
 */
import { AnthropicBedrock } from '@anthropic-ai/bedrock-sdk';
import { isBedrockModelId } from '../core/model-id.ts';
import type { ModelPort, ModelRequest } from '../core/ports.ts';
import { ModelConfigError } from './errors.ts';
import { clientOptions, type MessagesModelOptions, messagesModel } from './messages-port.ts';

/**
 * The `anthropic_version` Bedrock requires in the request body
 * (https://docs.aws.amazon.com/bedrock/latest/userguide/model-parameters-anthropic-claude-messages-request-response.html).
 * The SDK copies the `anthropic-version` header into the body, so the header carries it.
 */
export const BEDROCK_ANTHROPIC_VERSION = 'bedrock-2023-05-31';

/** Static credentials (tests, the local stack); absent, the AWS default chain (the Lambda's role) signs. */
export type StaticAwsCredentials = { accessKeyId: string; secretAccessKey: string; sessionToken?: string };

export type BedrockModelOptions = MessagesModelOptions & {
  /** The region whose Bedrock endpoint is called, e.g. the Lambda's `AWS_REGION`. Required: no silent default. */
  region: string;
  credentials?: StaticAwsCredentials;
};

/** Refuses an id Bedrock cannot take (an Anthropic API id such as `claude-sonnet-4-5`), before any call. */
export function checkBedrockModelId(model: string): void {
  if (isBedrockModelId(model) || model.startsWith('arn:')) return;
  throw new ModelConfigError(
    `model '${model}' is not a Bedrock model id; with provider bedrock give a Bedrock model id or inference ` +
      `profile id, e.g. anthropic.claude-sonnet-4-5-20250929-v1:0 or us.anthropic.claude-sonnet-4-5-20250929-v1:0; ` +
      'roles (fast, balanced, deep) name Anthropic API ids, so name the model by id (docs/deploy.md, "Bedrock model access")',
  );
}

/** A `ModelPort` that calls Claude on Amazon Bedrock; failures are thrown as `ModelError`s. */
export function createBedrockModel(options: BedrockModelOptions): ModelPort {
  if (options.region.trim() === '') {
    throw new ModelConfigError('the Bedrock region is empty: set AWS_REGION or the configured region');
  }
  const common = {
    awsRegion: options.region,
    // IAM only: `null` keeps the SDK from picking a bearer token (AWS_BEARER_TOKEN_BEDROCK) from the environment.
    apiKey: null,
    ...clientOptions(options),
    defaultHeaders: { ...options.defaultHeaders, 'anthropic-version': BEDROCK_ANTHROPIC_VERSION },
  };
  const { credentials } = options;
  const client = credentials
    ? new AnthropicBedrock({
        ...common,
        awsAccessKey: credentials.accessKeyId,
        awsSecretKey: credentials.secretAccessKey,
        awsSessionToken: credentials.sessionToken ?? null,
      })
    : new AnthropicBedrock(common);
  return messagesModel(client, options, (request: ModelRequest) => checkBedrockModelId(request.model));
}
