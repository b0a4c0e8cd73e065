/**
 * How the scripted server writes a served turn back, per API: the Messages API's JSON and SSE, or Bedrock's
 * JSON and event stream. The turn, its fixture and its expectations are the same for both.
 */
import type { ServerResponse } from 'node:http';
import { chunkMessage } from './scripted-eventstream.ts';
import { sendEvents, sendJson } from './scripted-http.ts';
import { errorBody, type StreamEvent } from './scripted-wire.ts';

export type Replies = {
  /** A 200 JSON body (the message, or a token count). */
  json(res: ServerResponse, body: unknown, requestId: string): void;
  /** A 200 stream of Messages-API events. */
  events(res: ServerResponse, events: StreamEvent[], requestId: string): void;
  /** An error answer; `type` is the Messages API's error type. */
  error(res: ServerResponse, status: number, type: string, message: string, requestId: string): void;
};

/** The Messages API (`api.anthropic.com`): JSON, SSE, `{type:'error', error:{type, message}}`. */
export const messagesReplies: Replies = {
  json: (res, body, requestId) => sendJson(res, 200, body, requestId),
  events: (res, events, requestId) => sendEvents(res, events, requestId),
  error: (res, status, type, message, requestId) =>
    sendJson(res, status, errorBody(type, message, requestId), requestId),
};

/**
 * Bedrock's exception per HTTP status, as InvokeModel documents them
 * (https://docs.aws.amazon.com/bedrock/latest/APIReference/API_runtime_InvokeModel.html#API_runtime_InvokeModel_Errors).
 * 529 (the Messages API's "overloaded") has no Bedrock twin; it is sent as ServiceUnavailableException.
 */
const EXCEPTIONS: Record<number, string> = {
  400: 'ValidationException',
  401: 'UnrecognizedClientException',
  403: 'AccessDeniedException',
  404: 'ResourceNotFoundException',
  408: 'ModelTimeoutException',
  424: 'ModelErrorException',
  429: 'ThrottlingException',
  500: 'InternalServerException',
  503: 'ServiceUnavailableException',
  529: 'ServiceUnavailableException',
};

export const bedrockExceptionFor = (status: number): string =>
  EXCEPTIONS[status] ?? (status >= 500 ? 'InternalServerException' : 'ValidationException');

/** Bedrock runtime (`bedrock-runtime.<region>.amazonaws.com`): JSON, event stream, `{message}` + `x-amzn-errortype`. */
export const bedrockReplies: Replies = {
  json(res, body, requestId) {
    res.writeHead(200, { 'content-type': 'application/json', 'x-amzn-requestid': requestId });
    res.end(JSON.stringify(body));
  },
  events(res, events, requestId) {
    res.writeHead(200, {
      'content-type': 'application/vnd.amazon.eventstream',
      'x-amzn-bedrock-content-type': 'application/json',
      'x-amzn-requestid': requestId,
    });
    res.end(Buffer.concat(events.map(chunkMessage)));
  },
  error(res, status, _type, message, requestId) {
    res.writeHead(status, {
      'content-type': 'application/json',
      'x-amzn-requestid': requestId,
      'x-amzn-errortype': `${bedrockExceptionFor(status)}:http://internal.amazon.com/coral/com.amazon.bedrock/`,
    });
    res.end(JSON.stringify({ message }));
  },
};
