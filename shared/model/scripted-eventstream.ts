/**
 * Bedrock's streaming framing for the scripted server: `InvokeModelWithResponseStream` answers with
 * `application/vnd.amazon.eventstream` messages, each a `chunk` event whose JSON payload is
 * `{"bytes": "<base64 of one Messages-API stream event>"}`
 * (https://docs.aws.amazon.com/bedrock/latest/APIReference/API_runtime_InvokeModelWithResponseStream.html,
 * https://docs.aws.amazon.com/bedrock/latest/APIReference/API_runtime_PayloadPart.html).
 * The binary framing (prelude, headers, payload, CRC32s; https://docs.aws.amazon.com/AmazonS3/latest/API/RESTSelectObjectAppendix.html)
 * is written by `@smithy/eventstream-codec`, the codec the AWS SDKs (and @anthropic-ai/bedrock-sdk) decode with.
 */
import { EventStreamCodec } from '@smithy/eventstream-codec';

const codec = new EventStreamCodec(
  (bytes) => new TextDecoder().decode(bytes),
  (text) => new TextEncoder().encode(text),
);

const stringHeader = (value: string) => ({ type: 'string' as const, value });

/** One `chunk` event message carrying one Messages-API stream event. */
export function chunkMessage(event: unknown): Uint8Array {
  const bytes = Buffer.from(JSON.stringify(event), 'utf8').toString('base64');
  return codec.encode({
    headers: {
      ':event-type': stringHeader('chunk'),
      ':content-type': stringHeader('application/json'),
      ':message-type': stringHeader('event'),
    },
    body: new TextEncoder().encode(JSON.stringify({ bytes })),
  });
}

/** Decodes a whole event-stream body back into its messages (tests). */
export function decodeEventStream(body: Uint8Array): { headers: Record<string, unknown>; body: string }[] {
  const messages: { headers: Record<string, unknown>; body: string }[] = [];
  const view = new DataView(body.buffer, body.byteOffset, body.byteLength);
  // Each message starts with its total length (big-endian uint32), which the codec then checks with its CRCs.
  for (let offset = 0; offset < body.byteLength; ) {
    const length = view.getUint32(offset);
    const message = codec.decode(body.subarray(offset, offset + length));
    messages.push({
      headers: Object.fromEntries(
        Object.entries(message.headers).map(([name, header]) => [name, header.value]),
      ),
      body: new TextDecoder().decode(message.body),
    });
    offset += length;
  }
  return messages;
}
