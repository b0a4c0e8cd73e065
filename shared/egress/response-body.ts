/**
 * Response bodies: the raw node:http stream, decoded per Content-Encoding as fetch decodes it (gzip, x-gzip,
 * deflate with or without its zlib header, br; several codings undone in reverse order; an unknown coding
 * is passed through as is), then offered as a web ReadableStream. The decoded size is capped downstream
 * (limits.ts `capBody`), so a compression bomb is cut by what it expands to, not by what it sends; at most
 * MAX_CONTENT_CODINGS codings are accepted (fetch.ts refuses more before reading the body).
 */
import type { IncomingMessage } from 'node:http';
import { Duplex, pipeline, Readable, Transform } from 'node:stream';
import zlib from 'node:zlib';
import { type EgressErrorContext, EgressLimitError } from './errors.ts';

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

/**
 * Most codings one response may stack, as Node's own fetch (undici) allows: each is a decoder of its own, and
 * thousands of them (`br,br,…` fits a 16 KiB header) cost hundreds of MB and minutes of CPU for a 5-byte body.
 */
export const MAX_CONTENT_CODINGS = 5;

/** The codings of a Content-Encoding header, in the order they are undone (the last applied first). */
export function contentCodings(header: string | null): string[] {
  return (header ?? '')
    .split(',')
    .map((coding) => coding.trim().toLowerCase())
    .filter((coding) => coding !== '' && coding !== 'identity')
    .reverse();
}

/**
 * The response body, decoded, as a web stream. Decoding errors and socket errors error the stream. Every
 * stage before the last (the bytes received and each inner decoder's output) is capped at `maxBytes` too
 * (`response_too_large`): the final output is capped downstream, but a middle layer of empty deflate blocks
 * would otherwise expand without limit while the reader waits for output that never comes.
 */
export function decodedBody(
  response: IncomingMessage,
  codings: readonly string[],
  maxBytes: number,
  context: EgressErrorContext,
): ReadableStream<Uint8Array> {
  const decoders = codings.map(decoderFor);
  // Unknown coding: hand the bytes over undecoded (undici does the same), never guess.
  if (decoders.length === 0 || decoders.includes(undefined)) {
    return Readable.toWeb(response) as ReadableStream<Uint8Array>;
  }
  const streams: (Readable | Duplex)[] = [response];
  decoders.forEach((decoder, index) => {
    const stage = index === 0 ? 'encoded body' : `output of content coding ${index}`;
    streams.push(stageCap(maxBytes, context, stage), decoder as Duplex);
  });
  const last = pipeline(streams as unknown as [Readable, Duplex], () => {}) as unknown as Readable;
  return Readable.toWeb(last) as ReadableStream<Uint8Array>;
}

/** Passes bytes through until more than `maxBytes` went by, then errors with `response_too_large`. */
function stageCap(maxBytes: number, context: EgressErrorContext, stage: string): Transform {
  let total = 0;
  return new Transform({
    transform(chunk: Buffer, _encoding, callback) {
      total += chunk.byteLength;
      if (total > maxBytes) {
        callback(
          new EgressLimitError('response_too_large', {
            ...context,
            detail: `${stage} exceeds ${maxBytes} bytes`,
          }),
        );
        return;
      }
      callback(null, chunk);
    },
  });
}
