/**
 * How the HTTP runtime adapter reads the engine's answers: wire states to observations, and HTTP status
 * codes to the contract's typed errors. A server error is the engine failing to answer (retryable), never a
 * verdict about the work.
 */
import type { Observation } from '../contract.ts';
import {
  ExternalNotFoundError,
  ExternalRefusedError,
  ExternalTransportError,
  IncarnationMismatchError,
} from '../errors.ts';
import type { ExternalHttpResponse } from '../ports.ts';
import type { ExecutionStatus } from './protocol.ts';

/** The observation a wire status stands for. */
export function toObservation(status: ExecutionStatus, observedAtMs: number): Observation {
  switch (status.state) {
    case 'accepted':
      return { observedAtMs, state: 'accepted' };
    case 'running':
      return status.progress === undefined
        ? { observedAtMs, state: 'running' }
        : { observedAtMs, state: 'running', progress: status.progress };
    case 'waiting':
      // The schema refuses a waiting status without a reason; 'capacity' only satisfies the type.
      return { observedAtMs, state: 'waiting', reason: status.wait_reason ?? 'capacity' };
    default:
      return { observedAtMs, state: 'terminal', outcome: status.state, summary: status.summary ?? '' };
  }
}

/** Whether a wire state is terminal (the execution no longer runs). */
export const isTerminalState = (state: ExecutionStatus['state']): boolean =>
  state === 'succeeded' || state === 'failed' || state === 'cancelled';

/** Refuses another incarnation than the one we started: never adopted. */
export function requireIncarnation(engine: string, key: string, expected: string, actual: string): void {
  if (actual !== expected) throw new IncarnationMismatchError(engine, key, expected, actual);
}

/** The typed error of a non-2xx answer (409s are read by each call, which knows what they mean). */
export function answerError(engine: string, key: string | undefined, response: ExternalHttpResponse): Error {
  const { status } = response;
  if (status === 404 && key !== undefined) return new ExternalNotFoundError(engine, key);
  if (status === 429 || status === 503) {
    const retryAfterSeconds = retryAfterOf(response.headers, Date.now());
    return new ExternalRefusedError(
      engine,
      key,
      `HTTP ${status}, retry later${retryAfterSeconds === undefined ? '' : ` (Retry-After ${retryAfterSeconds} s)`}`,
      { status, retryable: true, ...(retryAfterSeconds === undefined ? {} : { retryAfterSeconds }) },
    );
  }
  if (status >= 500) return new ExternalTransportError(engine, key, 'engine_error', `HTTP ${status}`, true);
  return new ExternalRefusedError(engine, key, `HTTP ${status}`, { status });
}

/**
 * The seconds a `Retry-After` header asks for: delay-seconds or an HTTP-date
 * (https://www.rfc-editor.org/rfc/rfc9110#field.retry-after); undefined when absent or unreadable. The caller
 * caps it (shared/external/run/backoff.ts). Header names are matched case-insensitively.
 */
export function retryAfterOf(headers: Record<string, string>, nowMs: number): number | undefined {
  const entry = Object.entries(headers).find(([name]) => name.toLowerCase() === 'retry-after');
  const value = entry?.[1].trim();
  if (!value) return undefined;
  if (/^\d{1,9}$/.test(value)) return Number(value);
  const at = Date.parse(value);
  if (Number.isNaN(at) || !/[A-Za-z]/.test(value)) return undefined;
  return Math.max(0, Math.ceil((at - nowMs) / 1000));
}
