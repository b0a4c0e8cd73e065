/**
 * The Bedrock side of the scripted server: `POST /model/{modelId}/invoke` and
 * `POST /model/{modelId}/invoke-with-response-stream`
 * (https://docs.aws.amazon.com/bedrock/latest/APIReference/API_runtime_InvokeModel.html). The model is in the
 * path and the body is the Messages-API body with `anthropic_version` instead of `model` and `stream`
 * (https://docs.aws.amazon.com/bedrock/latest/userguide/model-parameters-anthropic-claude-messages-request-response.html).
 */
import type { IncomingHttpHeaders } from 'node:http';
import type { WireRequest } from './scripted-expect.ts';

export const BEDROCK_ANTHROPIC_VERSION = 'bedrock-2023-05-31';

export type BedrockRoute = { model: string; stream: boolean };

const ROUTE = /^\/model\/([^/]+)\/(invoke|invoke-with-response-stream)$/;

/** The model and streaming mode of a Bedrock invoke path, or `undefined` for any other path. */
export function bedrockRoute(path: string): BedrockRoute | undefined {
  const match = ROUTE.exec(path);
  if (!match) return undefined;
  let model: string;
  try {
    model = decodeURIComponent(match[1]!);
  } catch {
    return undefined;
  }
  return { model, stream: match[2] === 'invoke-with-response-stream' };
}

// `AWS4-HMAC-SHA256 Credential=<key id>/<date>/<region>/bedrock/aws4_request, SignedHeaders=…, Signature=…`
const SIGV4_BEDROCK = /^AWS4-HMAC-SHA256 Credential=[^/,]+\/\d{8}\/[a-z0-9-]+\/bedrock\/aws4_request, /;

/**
 * What Bedrock would refuse in a request: no SigV4 signature for the `bedrock` service, a missing or other
 * `anthropic_version`, or the Messages API's `model`/`stream` keys, which Bedrock takes from the path.
 */
export function bedrockRequestProblems(
  headers: IncomingHttpHeaders,
  body: Record<string, unknown>,
): string[] {
  const problems: string[] = [];
  if (!SIGV4_BEDROCK.test(headers.authorization ?? '')) {
    problems.push('the request is not SigV4-signed for the bedrock service');
  }
  if (body.anthropic_version !== BEDROCK_ANTHROPIC_VERSION) {
    problems.push(
      `anthropic_version: expected "${BEDROCK_ANTHROPIC_VERSION}", got ${JSON.stringify(body.anthropic_version)}`,
    );
  }
  for (const key of ['model', 'stream']) {
    if (key in body)
      problems.push(`extraneous key [${key}] is not permitted (Bedrock takes it from the path)`);
  }
  return problems;
}

/** The body as the Messages API would have carried it: the path's model and streaming mode put back. */
export function messagesRequestOf(route: BedrockRoute, body: Record<string, unknown>): WireRequest {
  return { ...(body as WireRequest), model: route.model, stream: route.stream };
}
