/**
 * The HTTP runtime adapter (`http_runtime`): the contract over a Flue-style keyed-admission engine
 * (protocol.ts). Admission is keyed by `Idempotency-Key` and checked by payload digest on our side too, so
 * an engine that "deduplicates" onto another payload is a conflict, not a success.
 */
import { canonicalJson, sha256Hex } from '../../audit/canonical.ts';
import type { CancelFacts, ExternalAdapter, JsonValue, Observation, StartResult } from '../contract.ts';
import { ExternalConflictError, ExternalRefusedError, ExternalTransportError } from '../errors.ts';
import type { AdapterContext } from '../ports.ts';
import type { ExternalAdapterFactory } from '../registry.ts';
import { answerError, isTerminalState, requireIncarnation, toObservation } from './answers.ts';
import { listArtifacts, openArtifact } from './artifacts.ts';
import { verifyCallback } from './callback.ts';
import { HttpRuntimeClient } from './client.ts';
import {
  AbortResponseSchema,
  ErrorBodySchema,
  ExecutionKeySchema,
  ExecutionStatusSchema,
  HEADERS,
  paths,
} from './protocol.ts';
import { type HttpRuntimeSettings, HttpRuntimeSettingsSchema } from './settings.ts';

/** The registry name of the built-in HTTP runtime adapter. */
export const HTTP_RUNTIME_ENGINE = 'http_runtime';

/** An HTTP runtime adapter for one owner. */
export function createHttpRuntimeAdapter(
  settings: HttpRuntimeSettings,
  context: AdapterContext,
): ExternalAdapter {
  const engine = HTTP_RUNTIME_ENGINE;
  const client = new HttpRuntimeClient(engine, settings, context);
  const checkKey = (key: string) => {
    const problem = ExecutionKeySchema.safeParse(key).error?.issues[0]?.message;
    if (problem !== undefined) throw new ExternalRefusedError(engine, key, `key ${problem}`);
  };

  return {
    engine,

    async start(key: string, payload: JsonValue): Promise<StartResult> {
      checkKey(key);
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
        throw new ExternalTransportError(
          engine,
          key,
          'malformed_response',
          `answered for key ${status.key}`,
          true,
        );
      }
      // Fail closed: whatever the engine says, another payload under our key is a conflict.
      if (status.payload_sha256 !== digest)
        throw new ExternalConflictError(engine, key, digest, status.payload_sha256);
      return {
        execution: { engine, key, incarnation: status.incarnation, payloadSha256: digest },
        deduplicated: response.status === 200,
      };
    },

    async observe(key, incarnation): Promise<Observation> {
      checkKey(key);
      const unknown = (error: ExternalTransportError): Observation => ({
        observedAtMs: context.clock.nowMs(),
        state: 'unknown',
        cause: error.kind,
        detail: error.message,
      });
      try {
        const response = await client.send(key, { method: 'GET', path: paths.status(key) });
        if (response.status !== 200) {
          const error = answerError(engine, key, response);
          if (error instanceof ExternalRefusedError && error.retryable) {
            return unknown(new ExternalTransportError(engine, key, 'engine_error', error.message, true));
          }
          throw error;
        }
        const status = client.json(key, response, ExecutionStatusSchema);
        if (status.key !== key) {
          throw new ExternalTransportError(
            engine,
            key,
            'malformed_response',
            `status of ${status.key}`,
            true,
          );
        }
        requireIncarnation(engine, key, incarnation, status.incarnation);
        return toObservation(status, context.clock.nowMs());
      } catch (error) {
        if (error instanceof ExternalTransportError) return unknown(error);
        throw error;
      }
    },

    async cancel(key, incarnation): Promise<CancelFacts> {
      checkKey(key);
      try {
        const response = await client.send(key, {
          method: 'POST',
          path: paths.abort(key),
          headers: { 'content-type': 'application/json' },
          body: JSON.stringify({ incarnation }),
        });
        if (response.status === 409) {
          const body = client.json(key, response, ErrorBodySchema);
          requireIncarnation(engine, key, incarnation, body.incarnation ?? '(not given)');
        }
        if (response.status !== 200 && response.status !== 202) throw answerError(engine, key, response);
        const answer = client.json(key, response, AbortResponseSchema);
        requireIncarnation(engine, key, incarnation, answer.incarnation);
        const stopped = isTerminalState(answer.state);
        return { requested: true, acknowledged: answer.acknowledged, stopped };
      } catch (error) {
        // No usable answer: we asked (if anything left), nothing was confirmed.
        if (
          error instanceof ExternalTransportError ||
          (error instanceof ExternalRefusedError && error.retryable)
        ) {
          const sent = error instanceof ExternalTransportError ? error.sent : true;
          return { requested: sent, acknowledged: false, stopped: false, detail: error.message };
        }
        throw error;
      }
    },

    async listArtifacts(key, incarnation) {
      checkKey(key);
      return listArtifacts(client, key, incarnation);
    },
    async openArtifact(key, incarnation, path) {
      checkKey(key);
      return openArtifact(client, settings, key, incarnation, path);
    },
    verifyCallback: (request) => verifyCallback(engine, settings, context, request),
  };
}

/** The registry's factory of `http_runtime`. */
export const httpRuntimeFactory: ExternalAdapterFactory<HttpRuntimeSettings> = {
  engine: HTTP_RUNTIME_ENGINE,
  settings: HttpRuntimeSettingsSchema,
  create: createHttpRuntimeAdapter,
};
