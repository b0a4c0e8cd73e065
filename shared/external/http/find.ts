/**
 * `find` of the HTTP runtime adapter: `GET /executions/{key}` read for the execution it names, whatever its
 * incarnation, without admitting anything (a `POST /dispatch` would start the work if it never arrived). Used
 * only to cancel an execution whose dispatch got no usable answer (shared/external/run/cancel.ts).
 */
import type { ExternalExecution } from '../contract.ts';
import { ExternalNotFoundError, ExternalTransportError } from '../errors.ts';
import { answerError } from './answers.ts';
import type { HttpRuntimeClient } from './client.ts';
import { ExecutionStatusSchema, paths } from './protocol.ts';

/** The execution held under `key`, or undefined when the engine answers 404 (it does not know the key). */
export async function findExecution(
  client: HttpRuntimeClient,
  key: string,
): Promise<ExternalExecution | undefined> {
  const { engine } = client;
  const response = await client.send(key, { method: 'GET', path: paths.status(key) });
  if (response.status !== 200) {
    const error = answerError(engine, key, response);
    if (error instanceof ExternalNotFoundError) return undefined;
    throw error;
  }
  const status = client.json(key, response, ExecutionStatusSchema);
  if (status.key !== key) {
    throw new ExternalTransportError(engine, key, 'malformed_response', `status of ${status.key}`, true);
  }
  return { engine, key, incarnation: status.incarnation, payloadSha256: status.payload_sha256 };
}
