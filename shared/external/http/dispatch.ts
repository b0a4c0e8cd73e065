/**
 * `start` of the HTTP runtime adapter: `POST /dispatch` keyed by `Idempotency-Key`. The payload digest is
 * checked on our side too, so an engine that "deduplicates" onto another payload is a conflict, not a success.
 */
import { canonicalJson, sha256Hex } from '../../audit/canonical.ts';
import type { JsonValue, StartResult } from '../contract.ts';
import { ExternalConflictError, ExternalRefusedError, ExternalTransportError } from '../errors.ts';
import { answerError } from './answers.ts';
import type { HttpRuntimeClient } from './client.ts';
import { ErrorBodySchema, ExecutionStatusSchema, HEADERS, paths } from './protocol.ts';
import type { HttpRuntimeSettings } from './settings.ts';

/** Admits `payload` under `key` (or finds it admitted). */
export async function dispatch(
  client: HttpRuntimeClient,
  settings: HttpRuntimeSettings,
  key: string,
  payload: JsonValue,
): Promise<StartResult> {
  const { engine } = client;
  let digest: string;
  try {
    digest = sha256Hex(canonicalJson(payload));
  } catch (cause) {
    throw new ExternalRefusedError(engine, key, 'payload has no JSON form', { cause });
  }
  const callback = settings.callback === undefined ? {} : { callback_url: settings.callback.url };
  const response = await client.send(key, {
    method: 'POST',
    path: paths.dispatch(),
    headers: { 'content-type': 'application/json', [HEADERS.idempotencyKey]: key },
    body: JSON.stringify({ payload, payload_sha256: digest, ...callback }),
  });
  if (response.status === 409) {
    const body = client.json(key, response, ErrorBodySchema);
    throw new ExternalConflictError(engine, key, digest, body.payload_sha256);
  }
  if (response.status !== 200 && response.status !== 201) throw answerError(engine, key, response);
  const status = client.json(key, response, ExecutionStatusSchema);
  if (status.key !== key) {
    throw new ExternalTransportError(engine, key, 'malformed_response', `answered for ${status.key}`, true);
  }
  // Fail closed: whatever the engine says, another payload under our key is a conflict.
  if (status.payload_sha256 !== digest) {
    throw new ExternalConflictError(engine, key, digest, status.payload_sha256);
  }
  return {
    execution: { engine, key, incarnation: status.incarnation, payloadSha256: digest },
    deduplicated: response.status === 200,
  };
}
