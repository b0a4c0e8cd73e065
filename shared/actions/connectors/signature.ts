/**
 * The signature scheme of `signed_webhook` connectors, for senders and receivers alike:
 *
 *   X-Signature-Timestamp: <unix seconds>
 *   X-Signature-256:       sha256=<hex HMAC-SHA256(key, "<timestamp>.<exact body bytes>")>
 *
 * The timestamp is inside the signed material, so a captured request cannot be replayed later with a
 * fresh timestamp; a receiver rejects timestamps outside its tolerance (default 5 minutes) and may
 * remember signatures seen within it. Retries of the same call carry the same `Idempotency-Key` header.
 */
import { createHmac, timingSafeEqual } from 'node:crypto';

/** Header carrying the signed unix timestamp. */
export const SIGNATURE_TIMESTAMP_HEADER = 'X-Signature-Timestamp';
/** Default header carrying the signature (`signatureHeader` in the connector). */
export const DEFAULT_SIGNATURE_HEADER = 'X-Signature-256';
/** How far a receiver's clock may be from the timestamp. */
export const DEFAULT_TOLERANCE_SECONDS = 300;

/** `sha256=<hex>` over `<timestamp>.<body>`. */
export function webhookSignature(key: string, timestamp: number, body: string): string {
  return `sha256=${createHmac('sha256', key).update(`${timestamp}.${body}`, 'utf8').digest('hex')}`;
}

/** A receiver's check: the signature matches the body and timestamp, and the timestamp is recent. */
export function verifyWebhookSignature(args: {
  key: string;
  body: string;
  timestamp: string | undefined;
  signature: string | undefined;
  nowSeconds: number;
  toleranceSeconds?: number;
}): boolean {
  if (args.timestamp === undefined || args.signature === undefined || !/^\d{1,12}$/.test(args.timestamp))
    return false;
  const timestamp = Number(args.timestamp);
  if (Math.abs(args.nowSeconds - timestamp) > (args.toleranceSeconds ?? DEFAULT_TOLERANCE_SECONDS))
    return false;
  const expected = Buffer.from(webhookSignature(args.key, timestamp, args.body));
  const given = Buffer.from(args.signature);
  return expected.length === given.length && timingSafeEqual(expected, given);
}
