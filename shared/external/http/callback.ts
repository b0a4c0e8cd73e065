/**
 * Status callbacks of the HTTP runtime: the engine POSTs an execution status to our callback URL, signed
 * like signed_webhook connectors (HMAC-SHA256 over "<timestamp>.<body>", shared key in the owner's secrets).
 * Any fault rejects (fail closed) and the executor keeps polling; the caller still compares the incarnation
 * with the one it started.
 */
import { verifyWebhookSignature } from '../../actions/connectors/signature.ts';
import type { CallbackEvent, CallbackRequest } from '../contract.ts';
import { CallbackRejectedError } from '../errors.ts';
import type { AdapterContext } from '../ports.ts';
import { toObservation } from './answers.ts';
import { resolveOwnerSecret } from './client.ts';
import { ExecutionStatusSchema, HEADERS } from './protocol.ts';
import type { HttpRuntimeSettings } from './settings.ts';

/** Verifies and parses one callback. */
export async function verifyCallback(
  engine: string,
  settings: HttpRuntimeSettings,
  context: AdapterContext,
  request: CallbackRequest,
): Promise<CallbackEvent> {
  const callback = settings.callback;
  if (callback === undefined) throw new CallbackRejectedError(engine, 'not_configured');
  let key: string;
  try {
    key = await resolveOwnerSecret(context, callback.secret, callback.field);
  } catch (cause) {
    throw new CallbackRejectedError(engine, 'signature', cause);
  }
  const nowMs = context.clock.nowMs();
  const valid = verifyWebhookSignature({
    key,
    body: request.body,
    timestamp: request.headers[HEADERS.signatureTimestamp],
    signature: request.headers[HEADERS.signature],
    nowSeconds: Math.floor(nowMs / 1000),
    toleranceSeconds: callback.toleranceSeconds,
  });
  if (!valid) throw new CallbackRejectedError(engine, 'signature');
  let status: ReturnType<typeof ExecutionStatusSchema.parse>;
  try {
    status = ExecutionStatusSchema.parse(JSON.parse(request.body));
  } catch (cause) {
    throw new CallbackRejectedError(engine, 'malformed', cause);
  }
  return { key: status.key, incarnation: status.incarnation, observation: toObservation(status, nowMs) };
}
