/**
 * Translation of `@anthropic-ai/sdk` errors into the named model errors of `errors.ts`.
 */
import { AnthropicError, APIConnectionError, APIError } from '@anthropic-ai/sdk/core/error';
import { cutText } from '../core/byte-caps.ts';
import { STORED_ERROR_MESSAGE_UNITS } from '../core/stored-error.ts';
import {
  ModelAuthError,
  ModelBadRequestError,
  ModelConnectionError,
  ModelError,
  type ModelErrorOptions,
  ModelNotFoundError,
  ModelOverloadedError,
  ModelRateLimitedError,
  ModelServerError,
} from './errors.ts';

type ModelErrorClass = new (message: string, options?: ModelErrorOptions) => ModelError;

/** Error class by the API's `error.type`, used for errors that arrive inside a stream (no HTTP status). */
const BY_ERROR_TYPE: Record<string, ModelErrorClass> = {
  rate_limit_error: ModelRateLimitedError,
  overloaded_error: ModelOverloadedError,
  api_error: ModelServerError,
  timeout_error: ModelServerError,
  invalid_request_error: ModelBadRequestError,
  request_too_large: ModelBadRequestError,
  billing_error: ModelBadRequestError,
  authentication_error: ModelAuthError,
  permission_error: ModelAuthError,
  not_found_error: ModelNotFoundError,
  // Bedrock's stream exceptions, as @anthropic-ai/bedrock-sdk names them (the camel-cased `:exception-type`;
  // https://docs.aws.amazon.com/bedrock/latest/APIReference/API_runtime_ResponseStream.html).
  throttlingException: ModelRateLimitedError,
  serviceUnavailableException: ModelServerError,
  internalServerException: ModelServerError,
  modelStreamErrorException: ModelServerError,
  modelTimeoutException: ModelConnectionError,
  validationException: ModelBadRequestError,
};

function classForStatus(status: number): ModelErrorClass {
  if (status === 429) return ModelRateLimitedError;
  if (status === 529) return ModelOverloadedError;
  if (status >= 500) return ModelServerError;
  if (status === 401 || status === 403) return ModelAuthError;
  if (status === 404) return ModelNotFoundError;
  // 408 is the server giving up waiting for the request: a timeout, which a later attempt may beat.
  if (status === 408) return ModelConnectionError;
  return ModelBadRequestError;
}

/**
 * Bedrock names its error in a header, `x-amzn-errortype: ThrottlingException:http://…`, and its body holds
 * only `{message}` (https://docs.aws.amazon.com/bedrock/latest/APIReference/CommonErrors.html).
 */
function bedrockErrorType(error: APIError): string | undefined {
  return error.headers?.get('x-amzn-errortype')?.split(':')[0] || undefined;
}

/**
 * What a model error quotes of the SDK's message, which for an API error holds the whole response body: cut to
 * what a run stores of an error (stored-error.ts), never inside an emoji, and well-formed. The Turn throws it, so
 * it travels as the Lambda error's `errorMessage` in the Catch's `Cause` into the state machine's state, whose
 * input and output are limited to 256 KiB
 * (https://docs.aws.amazon.com/step-functions/latest/dg/service-quotas.html#service-limits-task-executions), and
 * a Step Functions `cause` is at most 32,768 characters
 * (https://docs.aws.amazon.com/step-functions/latest/apireference/API_TaskFailedEventDetails.html): an error
 * body of any size must not decide whether the run can end through its own `MarkFailed`.
 */
const quoted = (message: string): string => cutText(message, STORED_ERROR_MESSAGE_UNITS);

/** Turns whatever the SDK threw into a `ModelError` (model errors pass through unchanged). */
export function toModelError(error: unknown): ModelError {
  if (error instanceof ModelError) return error;
  if (error instanceof APIConnectionError) {
    // Includes APIConnectionTimeoutError: no response arrived.
    return new ModelConnectionError(`model API unreachable: ${quoted(error.message)}`, { cause: error });
  }
  if (error instanceof APIError) {
    const status = typeof error.status === 'number' ? error.status : undefined;
    const options: ModelErrorOptions = {
      status,
      type: error.type ?? bedrockErrorType(error) ?? undefined,
      requestId: error.requestID ?? error.headers?.get('x-amzn-requestid') ?? undefined,
      cause: error,
    };
    const ErrorClass =
      status !== undefined
        ? classForStatus(status)
        : // No status: an `event: error` inside an SSE stream (or an abort). Classify by type;
          // an unknown type mid-stream is most likely transient.
          (BY_ERROR_TYPE[error.type ?? ''] ?? (error.type ? ModelServerError : ModelConnectionError));
    return new ErrorClass(`model API error: ${quoted(error.message)}`, options);
  }
  if (error instanceof AnthropicError) {
    // SDK-side failures after a response started, e.g. a stream that ended without `message_stop`.
    return new ModelConnectionError(`model API call failed: ${quoted(error.message)}`, { cause: error });
  }
  const message = error instanceof Error ? error.message : String(error);
  return new ModelError(`model call failed: ${quoted(message)}`, false, { cause: error });
}
