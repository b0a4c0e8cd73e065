/**
 * Response limits: the overall deadline (one AbortSignal for DNS, connects, every hop and the body), the
 * cap on the DECODED body counted while streaming (stops a gzip bomb), and the mapping of node:http errors.
 */
import { EgressError, type EgressErrorContext, EgressLimitError, EgressNetworkError } from './errors.ts';

/**
 * Marks a guard error as ending a request that was sent (a connection was open, or an answer began): the
 * receiver may have acted on it. Anything that is not a guard error is returned unchanged.
 */
export function markSent(error: unknown, method: string): unknown {
  if (error instanceof EgressError) error.delivery = { sent: true, method };
  return error;
}

/** An overall deadline, also aborted by the caller's own signal. `clear` releases the timer and listener. */
export type Deadline = { signal: AbortSignal; clear(): void };

/** Starts the overall deadline of one guarded request. */
export function startDeadline(
  ms: number,
  callerSignal: AbortSignal | null | undefined,
  context: EgressErrorContext,
): Deadline {
  const controller = new AbortController();
  const timer = setTimeout(() => {
    controller.abort(new EgressLimitError('timeout', { ...context, detail: `overall deadline of ${ms} ms` }));
  }, ms);
  timer.unref();
  const onCallerAbort = () => controller.abort(callerSignal?.reason);
  if (callerSignal?.aborted) onCallerAbort();
  else callerSignal?.addEventListener('abort', onCallerAbort, { once: true });
  return {
    signal: controller.signal,
    clear() {
      clearTimeout(timer);
      callerSignal?.removeEventListener('abort', onCallerAbort);
    },
  };
}

/** node:http parser errors that are a limit of the policy rather than a network failure. */
const CODES: Record<string, EgressLimitError['reason']> = {
  HPE_HEADER_OVERFLOW: 'headers_too_large',
};

/** Turns whatever node:http, node:net or node:tls threw into the guard's error: the deadline's reason, a guard error, or a network error. */
export function toEgressError(error: unknown, signal: AbortSignal, context: EgressErrorContext): unknown {
  if (signal.aborted) return signal.reason;
  for (let cause = error, depth = 0; cause instanceof Error && depth < 8; cause = cause.cause, depth++) {
    if (cause instanceof EgressError) return cause;
    const code = (cause as { code?: unknown }).code;
    const reason = typeof code === 'string' ? CODES[code] : undefined;
    if (reason !== undefined) return new EgressLimitError(reason, context, error);
  }
  return new EgressNetworkError(context, error);
}

/**
 * Wraps a (decoded) body so it errors with `response_too_large` past `maxBytes` and with the deadline's
 * reason once it fired (also for bytes already received and still being decoded: the decoders are cancelled
 * rather than left to finish a stack of layers long after the deadline); `done` runs exactly once when the
 * body ends, fails or is cancelled. A body exists only once the request was answered, so its errors are marked
 * sent (with `method`, the request's method).
 */
export function capBody(
  body: ReadableStream<Uint8Array>,
  maxBytes: number,
  signal: AbortSignal,
  context: EgressErrorContext,
  done: () => void,
  method = 'GET',
): ReadableStream<Uint8Array> {
  const reader = body.getReader();
  let total = 0;
  let finished = false;
  let onAbort = () => {};
  const finish = () => {
    if (!finished) {
      finished = true;
      signal.removeEventListener('abort', onAbort);
      done();
    }
  };
  /** Ends the body with `error`, cancelling whatever still decodes upstream. */
  const fail = (controller: ReadableStreamDefaultController<Uint8Array>, error: unknown) => {
    if (finished) return;
    reader.cancel(error).catch(() => {});
    finish();
    controller.error(markSent(error, method));
  };
  return new ReadableStream<Uint8Array>(
    {
      start(controller) {
        onAbort = () => fail(controller, signal.reason);
        if (signal.aborted) onAbort();
        else signal.addEventListener('abort', onAbort, { once: true });
      },
      async pull(controller) {
        try {
          const { done: end, value } = await reader.read();
          if (finished) return;
          if (end) {
            finish();
            controller.close();
            return;
          }
          total += value.byteLength;
          if (total > maxBytes) {
            fail(
              controller,
              new EgressLimitError('response_too_large', {
                ...context,
                detail: `decoded body exceeds ${maxBytes} bytes`,
              }),
            );
            return;
          }
          controller.enqueue(value);
        } catch (error) {
          fail(controller, toEgressError(error, signal, context));
        }
      },
      cancel(reason) {
        finish();
        return reader.cancel(reason);
      },
    },
    { highWaterMark: 0 },
  );
}
