/**
 * Task tokens for `.waitForTaskToken` states: aws-local-stepfunctions has no callback pattern, so each wait
 * is a promise held here under a fresh random token, settled by SendTaskSuccess / SendTaskFailure, by its
 * timeout or heartbeat timeout, or closed with its execution.
 *
 * Token answers, as the AWS SDK surfaces them: an open token works; a closed one (answered, timed out, execution
 * ended) answers `TaskTimedOut`; a well-formed token minted by another instance (a local stack before a restart:
 * its execution is gone) also answers `TaskTimedOut`; anything else answers `InvalidToken`.
 */
import { randomBytes } from 'node:crypto';
import { deferred } from './deferred.ts';
import { SfnApiError, TaskFailedError } from './errors.ts';

const TOKEN_FORMAT = /^lsfn1\.([A-Za-z0-9_-]{8})\.[A-Za-z0-9_-]{43}$/;
const MAX_TIMER_MS = 2 ** 31 - 1;
const CLOSED_MESSAGE = "Task Timed Out: 'Provided task does not exist anymore'";

export type OpenWait = { executionArn: string; stateName: string; timeoutMs?: number; heartbeatMs?: number };
export type WaitInfo = { token: string; executionArn: string; stateName: string };

type Wait = WaitInfo & {
  resolve(output: unknown): void;
  reject(error: Error): void;
  timeout?: NodeJS.Timeout;
  heartbeat?: NodeJS.Timeout;
  heartbeatMs?: number;
};

/** The open and closed task tokens of one LocalStepFunctions instance. */
export class TaskTokens {
  readonly #instanceId = randomBytes(6).toString('base64url');
  readonly #open = new Map<string, Wait>();
  readonly #closed = new Set<string>();

  /** Mints a fresh token and opens its wait; `result` settles when the wait ends. Timers start now. */
  open(wait: OpenWait): { token: string; result: Promise<unknown> } {
    const token = `lsfn1.${this.#instanceId}.${randomBytes(32).toString('base64url')}`;
    const { promise, resolve, reject } = deferred<unknown>();
    // The execution may stop before anyone awaits the wait; never leave an unhandled rejection behind.
    promise.catch(() => {});
    const entry: Wait = {
      token,
      executionArn: wait.executionArn,
      stateName: wait.stateName,
      resolve,
      reject,
    };
    if (wait.timeoutMs !== undefined) {
      entry.timeout = setTimeout(
        () =>
          this.#close(entry, new TaskFailedError('States.Timeout', 'The task timed out (TimeoutSeconds).')),
        Math.min(wait.timeoutMs, MAX_TIMER_MS),
      );
    }
    if (wait.heartbeatMs !== undefined) {
      entry.heartbeatMs = Math.min(wait.heartbeatMs, MAX_TIMER_MS);
      this.#armHeartbeat(entry);
    }
    this.#open.set(token, entry);
    return { token, result: promise };
  }

  /** SendTaskSuccess: `output` is the task result (already parsed). */
  succeed(token: string, output: unknown): void {
    const entry = this.#lookup(token);
    this.#settle(entry);
    entry.resolve(output);
  }

  /** SendTaskFailure: the state fails with `error` as its error name and `cause` as its cause. */
  fail(token: string, error: string | undefined, cause: string | undefined): void {
    const entry = this.#lookup(token);
    this.#settle(entry);
    entry.reject(new TaskFailedError(error ?? '', cause ?? ''));
  }

  /** SendTaskHeartbeat: restarts the heartbeat timer of an open wait. */
  heartbeat(token: string): void {
    const entry = this.#lookup(token);
    if (entry.heartbeatMs !== undefined) this.#armHeartbeat(entry);
  }

  /** Closes the open waits of an execution (stopped, timed out, failed); their tokens answer TaskTimedOut. */
  closeExecution(executionArn: string, reason: Error): void {
    for (const entry of [...this.#open.values()]) {
      if (entry.executionArn === executionArn) this.#close(entry, reason);
    }
  }

  /** Closes the wait of a token whose Task gave up on it (the wait failed before the handler returned). */
  close(token: string, reason: Error): void {
    const entry = this.#open.get(token);
    if (entry) this.#close(entry, reason);
  }

  /** The open waits, for inspection (tests, progress display). */
  openWaits(executionArn?: string): WaitInfo[] {
    return [...this.#open.values()]
      .filter((entry) => executionArn === undefined || entry.executionArn === executionArn)
      .map(({ token, executionArn: arn, stateName }) => ({ token, executionArn: arn, stateName }));
  }

  /** True when this instance minted the token (open or not): which local state machine it belongs to. */
  mintedHere(token: string): boolean {
    return TOKEN_FORMAT.exec(token)?.[1] === this.#instanceId;
  }

  /** True when the token is open. */
  isOpen(token: string): boolean {
    return this.#open.has(token);
  }

  #lookup(token: string): Wait {
    const entry = this.#open.get(token);
    if (entry) return entry;
    if (this.#closed.has(token)) throw new SfnApiError('TaskTimedOut', CLOSED_MESSAGE);
    const match = TOKEN_FORMAT.exec(token);
    if (match && match[1] !== this.#instanceId) {
      throw new SfnApiError('TaskTimedOut', `${CLOSED_MESSAGE} (minted by another local instance)`);
    }
    throw new SfnApiError('InvalidToken', 'Invalid Token');
  }

  #armHeartbeat(entry: Wait): void {
    clearTimeout(entry.heartbeat);
    entry.heartbeat = setTimeout(
      () =>
        this.#close(
          entry,
          new TaskFailedError('States.HeartbeatTimeout', 'No heartbeat within HeartbeatSeconds.'),
        ),
      entry.heartbeatMs,
    );
  }

  #close(entry: Wait, reason: Error): void {
    this.#settle(entry);
    entry.reject(reason);
  }

  #settle(entry: Wait): void {
    clearTimeout(entry.timeout);
    clearTimeout(entry.heartbeat);
    this.#open.delete(entry.token);
    this.#closed.add(entry.token);
  }
}
