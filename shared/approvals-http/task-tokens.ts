/**
 * The task-token port: resumes (or fails) an execution waiting on `lambda:invoke.waitForTaskToken`.
 * Reconciles instead of retrying blindly: a token that is no longer open means the wait is already over
 * (answered, timed out, or replaced by a newer wait), and the decision stays recorded for the next Turn.
 */
import { SendTaskFailureCommand, SendTaskSuccessCommand, type SFNClient } from '@aws-sdk/client-sfn';
import { sfnFailureFields } from '../core/sfn-failure.ts';
import { TaskTokenSendError } from './errors.ts';

/** `sent`: the wait was open and is now answered. `already_closed`: there was nothing left to answer. */
export type TaskTokenAnswer = 'sent' | 'already_closed';

/** Answers a waiting task. Task tokens are credentials: implementations never log them. */
export interface TaskTokensPort {
  sendSuccess(token: string, output: object): Promise<TaskTokenAnswer>;
  sendFailure(token: string, error: string, cause: string): Promise<TaskTokenAnswer>;
}

/** Error names meaning the wait is over: timed out or answered, an unknown/replaced token, no such task. */
export const CLOSED_TOKEN_ERRORS: ReadonlySet<string> = new Set([
  'TaskTimedOut',
  'InvalidToken',
  'TaskDoesNotExist',
]);

const THROTTLING_ERRORS = new Set([
  'ThrottlingException',
  'Throttling',
  'TooManyRequestsException',
  'RequestThrottledException',
]);
const NETWORK_ERRORS = new Set(['ECONNRESET', 'ECONNREFUSED', 'EPIPE', 'ETIMEDOUT', 'EAI_AGAIN']);

type SdkError = {
  name?: string;
  code?: string;
  $metadata?: { httpStatusCode?: number };
  $retryable?: { throttling?: boolean };
};

/** Throttling, a 5xx, or no HTTP answer at all (connection reset / refused, timeout). */
export function isTransientSfnError(error: unknown): boolean {
  if (typeof error !== 'object' || error === null) return false;
  const e = error as SdkError;
  const status = e.$metadata?.httpStatusCode;
  if (status !== undefined) return status >= 500 || status === 429 || THROTTLING_ERRORS.has(e.name ?? '');
  if (e.$retryable?.throttling === true || THROTTLING_ERRORS.has(e.name ?? '')) return true;
  return NETWORK_ERRORS.has(e.code ?? '') || e.name === 'TimeoutError';
}

export type SfnTaskTokensOptions = {
  /** Retries after the first attempt on throttling / 5xx / network faults. @default 3 */
  retries?: number;
  /** Backoff before retry n (1-based), in ms. @default 100 · 2^(n−1) plus up to 50 % jitter */
  backoffMs?: (retry: number) => number;
  /** Injected for tests. @default setTimeout */
  sleep?: (ms: number) => Promise<void>;
};

const defaultBackoff = (retry: number): number => {
  const base = 100 * 2 ** (retry - 1);
  return base + Math.floor(Math.random() * base * 0.5);
};
const defaultSleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

/**
 * The port on `@aws-sdk/client-sfn`. Works the same against AWS and the local stack's Step Functions endpoint.
 * Build the client with `maxAttempts: 1`: otherwise the SDK's own retries multiply these.
 */
export function sfnTaskTokens(client: SFNClient, options: SfnTaskTokensOptions = {}): TaskTokensPort {
  const retries = options.retries ?? 3;
  const backoff = options.backoffMs ?? defaultBackoff;
  const sleep = options.sleep ?? defaultSleep;

  async function answer(
    operation: 'SendTaskSuccess' | 'SendTaskFailure',
    send: () => Promise<unknown>,
  ): Promise<TaskTokenAnswer> {
    for (let attempt = 1; ; attempt++) {
      try {
        await send();
        return 'sent';
      } catch (error) {
        const name = (error as SdkError | undefined)?.name ?? 'Error';
        if (CLOSED_TOKEN_ERRORS.has(name)) return 'already_closed';
        if (!isTransientSfnError(error) || attempt > retries) {
          // The SDK's message may quote the token (InvalidToken does): keep only its name and status.
          throw new TaskTokenSendError(
            operation,
            name,
            attempt,
            (error as SdkError).$metadata?.httpStatusCode,
          );
        }
        await sleep(backoff(attempt));
      }
    }
  }

  return {
    sendSuccess: (token, output) =>
      answer('SendTaskSuccess', () =>
        client.send(new SendTaskSuccessCommand({ taskToken: token, output: JSON.stringify(output) })),
      ),
    // Cut to the API's caps: a longer error or cause is refused, and the wait would stay open to its timeout.
    sendFailure: (token, error, cause) =>
      answer('SendTaskFailure', () =>
        client.send(new SendTaskFailureCommand({ taskToken: token, ...sfnFailureFields(error, cause) })),
      ),
  };
}
