/**
 * `observe` and `cancel` of the HTTP runtime adapter. No usable answer is `unknown` (observe) or an
 * unconfirmed cancellation (cancel), never a verdict — a refusal to answer a status read (a 4xx other than
 * 404) included; another incarnation is refused, never adopted.
 */
import type { Clock } from '../../core/ports.ts';
import type { CancelFacts, Observation } from '../contract.ts';
import { ExternalRefusedError, ExternalTransportError } from '../errors.ts';
import { answerError, isTerminalState, requireIncarnation, toObservation } from './answers.ts';
import type { HttpRuntimeClient } from './client.ts';
import { AbortResponseSchema, ErrorBodySchema, ExecutionStatusSchema, paths } from './protocol.ts';

/** `GET /executions/{key}`, as an observation. */
export async function observeExecution(
  client: HttpRuntimeClient,
  clock: Clock,
  key: string,
  incarnation: string,
): Promise<Observation> {
  const { engine } = client;
  try {
    const response = await client.send(key, { method: 'GET', path: paths.status(key) });
    if (response.status !== 200) throw answerError(engine, key, response);
    const status = client.json(key, response, ExecutionStatusSchema);
    if (status.key !== key) {
      throw new ExternalTransportError(engine, key, 'malformed_response', `status of ${status.key}`, true);
    }
    requireIncarnation(engine, key, incarnation, status.incarnation);
    return toObservation(status, clock.nowMs());
  } catch (error) {
    if (error instanceof ExternalTransportError)
      return { observedAtMs: clock.nowMs(), state: 'unknown', cause: error.kind, detail: error.message };
    // A refusal to answer (429/503 "later", 400/401/403…, egress or credential refused) says nothing about the
    // work: `unknown`, observed again until the unknown deadline. Only 404 (ExternalNotFoundError) and another
    // incarnation are answers about the execution.
    if (error instanceof ExternalRefusedError) {
      const cause = error.retryable ? 'engine_error' : 'refused';
      return { observedAtMs: clock.nowMs(), state: 'unknown', cause, detail: error.message };
    }
    throw error;
  }
}

/** `POST /executions/{key}/abort`, as the three facts. */
export async function cancelExecution(
  client: HttpRuntimeClient,
  key: string,
  incarnation: string,
): Promise<CancelFacts> {
  const { engine } = client;
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
    return { requested: true, acknowledged: answer.acknowledged, stopped: isTerminalState(answer.state) };
  } catch (error) {
    // No usable answer: asked (unless provably nothing left), nothing confirmed.
    if (error instanceof ExternalTransportError) {
      return { requested: error.sent, acknowledged: false, stopped: false, detail: error.message };
    }
    // "Later" (429/503: the engine got it), or a credential not loadable now (nothing left: not requested).
    if (error instanceof ExternalRefusedError && error.retryable) {
      return { requested: error.sent, acknowledged: false, stopped: false, detail: error.message };
    }
    throw error;
  }
}
