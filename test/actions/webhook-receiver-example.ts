import { createHmac, timingSafeEqual } from 'node:crypto';

/** A receiver's check of a signed_webhook request: the signature over "<timestamp>.<raw body>", and a recent timestamp. */
export function verifySignedWebhook(
  key: string,
  rawBody: string,
  headers: Record<string, string | string[] | undefined>,
  nowSeconds = Math.floor(Date.now() / 1000),
): boolean {
  const timestamp = headers['x-signature-timestamp'];
  const signature = headers['x-signature-256'];
  if (typeof timestamp !== 'string' || typeof signature !== 'string' || !/^\d+$/.test(timestamp))
    return false;
  if (Math.abs(nowSeconds - Number(timestamp)) > 300) return false; // too old (or from the future): a replay
  const expected = `sha256=${createHmac('sha256', key).update(`${timestamp}.${rawBody}`).digest('hex')}`;
  return (
    expected.length === signature.length && timingSafeEqual(Buffer.from(expected), Buffer.from(signature))
  );
}
