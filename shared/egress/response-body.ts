/**
 * Response bodies: the raw node:http stream, decoded per Content-Encoding as fetch decodes it (gzip, x-gzip,
 * deflate with or without its zlib header, br; several codings undone in reverse order; an unknown coding
 * is passed through as is), then offered as a web ReadableStream. The decoded size is capped downstream
 * (limits.ts `capBody`), so a compression bomb is cut by what it expands to, not by what it sends.
 */
import type { IncomingMessage } from 'node:http';
import { Duplex, pipeline, Readable } from 'node:stream';
import zlib from 'node:zlib';

/**
 * Decoders are lenient about a truncated end (as browsers and undici are): a body cut short after its
 * last complete block yields what was decoded rather than an error.
 */
const FLUSH = { flush: zlib.constants.Z_SYNC_FLUSH, finishFlush: zlib.constants.Z_SYNC_FLUSH };
const BROTLI_FLUSH = {
  flush: zlib.constants.BROTLI_OPERATION_FLUSH,
  finishFlush: zlib.constants.BROTLI_OPERATION_FLUSH,
};

function decoderFor(coding: string): Duplex | undefined {
  switch (coding) {
    case 'gzip':
    case 'x-gzip':
      return zlib.createGunzip(FLUSH);
    case 'deflate':
      return deflateDecoder();
    case 'br':
      return zlib.createBrotliDecompress(BROTLI_FLUSH);
    default:
      return undefined;
  }
}

/** Content-Encoding `deflate`: zlib-wrapped per the RFC, but servers also send raw deflate; sniff the header. */
function deflateDecoder(): Duplex {
  return Duplex.from(async function* (source: AsyncIterable<Buffer>) {
    const chunks = source[Symbol.asyncIterator]();
    const first = await chunks.next();
    if (first.done) return;
    // A zlib header's first byte has compression method 8 in its low nibble (RFC 1950).
    const wrapped = ((first.value[0] ?? 0) & 0x0f) === 0x08;
    const inflate = wrapped ? zlib.createInflate(FLUSH) : zlib.createInflateRaw(FLUSH);
    const rest = Readable.from(
      (async function* () {
        yield first.value;
        for (let next = await chunks.next(); !next.done; next = await chunks.next()) yield next.value;
      })(),
    );
    // Iterating the inflater keeps backpressure: nothing is inflated faster than it is read.
    yield* pipeline(rest, inflate, () => {}) as AsyncIterable<Buffer>;
  });
}

/** The response body, decoded, as a web stream. Decoding errors and socket errors error the stream. */
export function decodedBody(response: IncomingMessage): ReadableStream<Uint8Array> {
  const header = response.headers['content-encoding'] ?? '';
  const codings = header
    .split(',')
    .map((coding) => coding.trim().toLowerCase())
    .filter((coding) => coding !== '' && coding !== 'identity')
    .reverse();
  const decoders = codings.map(decoderFor);
  const streams: (Readable | Duplex)[] = [response];
  // Unknown coding: hand the bytes over undecoded (undici does the same), never guess.
  if (!decoders.includes(undefined)) streams.push(...(decoders as Duplex[]));
  const last =
    streams.length === 1
      ? response
      : (pipeline(streams as unknown as [Readable, Duplex], () => {}) as unknown as Readable);
  return Readable.toWeb(last) as ReadableStream<Uint8Array>;
}
