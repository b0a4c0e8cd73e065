/** DynamoDB document client construction, once per container. */
import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { storeOwnConstructorFields } from './own-constructor-keys.ts';

export type StoreConfig = {
  tableName: string;
  /** DynamoDB Local's endpoint; absent on AWS. */
  endpoint?: string;
  region?: string;
};

export type StoreContext = { doc: DynamoDBDocumentClient; table: string };

export function createStoreContext(config: StoreConfig): StoreContext {
  const client = new DynamoDBClient({
    ...(config.endpoint
      ? {
          endpoint: config.endpoint,
          region: config.region ?? 'local',
          credentials: { accessKeyId: 'local', secretAccessKey: 'local' },
        }
      : config.region
        ? { region: config.region }
        : {}),
  });
  markStoreFaults(client);
  const doc = DynamoDBDocumentClient.from(client, {
    marshallOptions: { removeUndefinedValues: true, convertClassInstanceToMap: false },
  });
  storeOwnConstructorFields(doc);
  return { doc, table: config.tableName };
}

/** Set on every error a store call ends with, so the API can tell DynamoDB's faults from other services'. */
const STORE_FAULT = Symbol.for('wf.store-fault');

/**
 * Marks what a call on this client finally throws (outermost middleware: after the SDK's retries). Errors are
 * marked, not wrapped: the store's own handlers still see the SDK's classes (TransactionCanceledException).
 */
function markStoreFaults(client: DynamoDBClient): void {
  client.middlewareStack.add(
    (next) => async (args) => {
      try {
        return await next(args);
      } catch (error) {
        if (error !== null && typeof error === 'object' && Object.isExtensible(error))
          Object.defineProperty(error, STORE_FAULT, { value: true });
        throw error;
      }
    },
    { step: 'initialize', priority: 'high', name: 'markStoreFaults' },
  );
}

/** Did this error come out of a store call (a DynamoDB request, or the connection to it)? */
export const isStoreFault = (error: unknown): boolean =>
  error !== null && typeof error === 'object' && STORE_FAULT in error;

/** Maps SDK throttling to a named, retryable error; anything else passes through. */
export function isThrottle(error: unknown): boolean {
  const name = (error as { name?: string } | undefined)?.name ?? '';
  return ['ProvisionedThroughputExceededException', 'ThrottlingException', 'RequestLimitExceeded'].includes(
    name,
  );
}

/** Node's codes for a connection that dropped or never came (the SDK retries these as transient). */
const DROPPED_CONNECTION = ['ECONNRESET', 'ECONNREFUSED', 'EPIPE', 'ETIMEDOUT'];
/** Cancellation reasons that say "busy", not "refused": no condition failed, nothing was wrong with the items. */
const BUSY_REASONS = ['TransactionConflict', 'ThrottlingError', 'None'];

/** A transaction cancelled by a conflict with another transaction, and by nothing else (no condition, no throttle). */
export const isConflictOnly = (reasons: readonly { Code?: string | undefined }[]): boolean =>
  reasons.some((reason) => reason.Code === 'TransactionConflict') &&
  reasons.every((reason) => reason.Code === 'TransactionConflict' || (reason.Code ?? 'None') === 'None');

/**
 * A store call (never another service's) that failed only because DynamoDB, or the way to it, was busy or
 * briefly away, after the SDK's own retries: throttling, DynamoDB's 5xx (InternalServerError, ServiceUnavailable: "OK to retry"), a
 * timeout, a dropped connection, or a transaction cancelled only by conflicts with other transactions in
 * flight. The request may be sent again as it was; nothing about it was wrong.
 * https://docs.aws.amazon.com/amazondynamodb/latest/developerguide/Programming.Errors.html
 * https://docs.aws.amazon.com/amazondynamodb/latest/developerguide/transaction-apis.html
 */
export function isTransientStoreFault(error: unknown): boolean {
  if (!isStoreFault(error)) return false;
  const fault = error as {
    name?: string;
    code?: string;
    $fault?: string;
    CancellationReasons?: { Code?: string }[];
  };
  if (isThrottle(error) || fault.name === 'TimeoutError' || fault.$fault === 'server') return true;
  if (fault.code !== undefined && DROPPED_CONNECTION.includes(fault.code)) return true;
  if (fault.name !== 'TransactionCanceledException') return false;
  const codes = (fault.CancellationReasons ?? []).map((reason) => reason.Code ?? 'None');
  return codes.some((code) => code !== 'None') && codes.every((code) => BUSY_REASONS.includes(code));
}
