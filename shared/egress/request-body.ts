/**
 * Request bodies: any fetch `BodyInit`, extracted as fetch extracts it (so a string, URLSearchParams,
 * FormData or Blob gets the Content-Type fetch would give it). A body of known length is sent with
 * Content-Length; a ReadableStream is streamed chunked (and cannot be replayed on a redirect).
 */

/** A body ready for the wire. */
export type EncodedBody = {
  bytes?: Uint8Array;
  stream?: ReadableStream<Uint8Array>;
  /** The Content-Type fetch derives from the body (used only when the caller set none). */
  contentType?: string;
};

/** Extracts a body the way fetch does. `null`/`undefined` is no body at all. */
export async function encodeBody(body: BodyInit | null | undefined): Promise<EncodedBody> {
  if (body === null || body === undefined) return {};
  // fetch derives no Content-Type for a stream.
  if (body instanceof ReadableStream) return { stream: body as ReadableStream<Uint8Array> };
  const extracted = new Response(body);
  const contentType = extracted.headers.get('content-type') ?? undefined;
  const type = contentType === undefined ? {} : { contentType };
  return { bytes: new Uint8Array(await extracted.arrayBuffer()), ...type };
}
