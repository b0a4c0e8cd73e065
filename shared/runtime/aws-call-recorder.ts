/**
 * Records the AWS API calls a function makes (test mode only), so the offline IAM check (test/iam) can
 * evaluate each one against the synthesized template's policies. A record names the calling function, the
 * SDK client and command, and the identifiers in the input (table, topic, secret, state machine, schedule,
 * rule, role …), never data: items, messages, secret values and task tokens are not read. Of a DynamoDB item
 * only its partition key is kept (`Key.pk`, `Item.pk`, a batch's `Keys.<n>.pk`): it names the partition, which
 * is what `dynamodb:LeadingKeys` conditions match
 * (https://docs.aws.amazon.com/amazondynamodb/latest/developerguide/specifying-conditions.html).
 *
 * Off unless a composition root is asked: `WF_AWS_CALL_LOG=<file>` (the AWS root, one JSON line per call) or
 * an explicit sink (the local stack). The calling function is the one `withFunctionName` set for the
 * current async context (the local stack's task and route shims), else `AWS_LAMBDA_FUNCTION_NAME`.
 */
import { AsyncLocalStorage } from 'node:async_hooks';
import { appendFileSync } from 'node:fs';

/** The environment variable that turns recording on in the AWS composition root (tests only). */
export const AWS_CALL_LOG_ENV = 'WF_AWS_CALL_LOG';

/** One AWS API call as the SDK was asked to make it. */
export type AwsCallRecord = {
  /** The calling function's logical name (`turn`, `api`, …), or `unknown`. */
  fn: string;
  /** SDK client name, e.g. `DynamoDBClient`. */
  client: string;
  /** SDK command name without `Command`, e.g. `TransactWriteItems`. */
  command: string;
  /** Identifier fields of the input, by dotted path (`TransactItems.0.Put.TableName`). */
  ids: Record<string, string>;
  /**
   * The role session the client signs with, when it is not the function's own role: the role and the
   * session tags (the per-owner credential-reader session, shared/credentials/owner-sessions.ts).
   */
  session?: AwsCallSession;
};

export type AwsCallSession = { roleArn: string; tags: Record<string, string> };

export type AwsCallSink = (record: AwsCallRecord) => void;

/** Shared across module instances (tests re-import handler modules per function). */
const FUNCTION_CONTEXT_KEY = Symbol.for('wf.aws-call-recorder.function');
const shared = globalThis as Record<symbol, AsyncLocalStorage<string> | undefined>;
const functionContext: AsyncLocalStorage<string> =
  shared[FUNCTION_CONTEXT_KEY] ?? new AsyncLocalStorage<string>();
shared[FUNCTION_CONTEXT_KEY] = functionContext;

/** Runs `work` as function `name`: AWS calls made inside it are recorded as that function's. */
export const withFunctionName = <T>(name: string, work: () => T): T => functionContext.run(name, work);

/** Input fields that hold data rather than identifiers: never read. */
const DATA_FIELDS = new Set([
  'Item',
  'ExpressionAttributeValues',
  'ExpressionAttributeNames',
  'ExclusiveStartKey',
  'Message',
  'Subject',
  'MessageAttributes',
  'Input',
  'input',
  'output',
  'Payload',
  'Detail',
  'SecretString',
  'SecretBinary',
  'taskToken',
  'EventPattern',
  'Description',
]);
const IDENTIFIER_FIELD = /(Name|Arn|ARN|Id|Prefix|Key|Value|^Rule)$/;
/** The table's partition key attribute (shared/store/keys.ts): the one item attribute recorded. */
const PARTITION_KEY = 'pk';

/** The partition key of a DynamoDB key or item, if `value` is one. */
const partitionOf = (value: unknown): string | undefined => {
  const pk =
    typeof value === 'object' && value !== null
      ? (value as Record<string, unknown>)[PARTITION_KEY]
      : undefined;
  return typeof pk === 'string' ? pk : undefined;
};

/** The identifier fields of a command input, flattened by dotted path. */
export function identifiersOf(input: unknown, path = '', depth = 0, out: Record<string, string> = {}) {
  if (depth > 5 || typeof input !== 'object' || input === null) return out;
  for (const [field, value] of Object.entries(input)) {
    const at = path ? `${path}.${field}` : field;
    const partition = field === 'Key' || field === 'Item' ? partitionOf(value) : undefined;
    if (partition !== undefined) out[`${at}.${PARTITION_KEY}`] = partition;
    else if (DATA_FIELDS.has(field)) continue;
    else if (typeof value === 'string' && (IDENTIFIER_FIELD.test(field) || /^\d+$/.test(field)))
      out[at] = value;
    else if (field === 'RequestItems' && typeof value === 'object' && value !== null)
      Object.entries(value).forEach(([table, request], index) => {
        out[`RequestItems.${index}.TableName`] = table;
        const keys = (request as { Keys?: unknown[] } | null)?.Keys ?? [];
        keys.forEach((key, n) => {
          const pk = partitionOf(key);
          if (pk !== undefined) out[`RequestItems.${index}.Keys.${n}.${PARTITION_KEY}`] = pk;
        });
      });
    else identifiersOf(value, at, depth + 1, out);
  }
  return out;
}

type Instrumentable = {
  middlewareStack: {
    add(
      middleware: (next: (args: unknown) => Promise<unknown>, context: Record<string, unknown>) => unknown,
      options: { step: 'initialize'; name: string; override?: boolean },
    ): void;
  };
};

/** Adds the recording middleware to an SDK client (or a DynamoDB document client). Returns the client. */
export function recordAwsCalls<T>(client: T, sink: AwsCallSink, session?: AwsCallSession): T {
  (client as unknown as Instrumentable).middlewareStack.add(
    (next, context) => async (args: unknown) => {
      sink({
        fn: functionContext.getStore() ?? process.env.AWS_LAMBDA_FUNCTION_NAME ?? 'unknown',
        client: String(context.clientName ?? 'unknown'),
        command: String(context.commandName ?? 'unknown').replace(/Command$/, ''),
        ids: identifiersOf((args as { input?: unknown }).input),
        ...(session ? { session } : {}),
      });
      return next(args);
    },
    { step: 'initialize', name: 'wfAwsCallRecorder', override: true },
  );
  return client;
}

/** A sink appending one JSON line per call to `file`. */
export const fileSink =
  (file: string): AwsCallSink =>
  (record) =>
    appendFileSync(file, `${JSON.stringify(record)}\n`);

/** `recordAwsCalls` into `WF_AWS_CALL_LOG` when it is set; otherwise the client unchanged. */
export function recordAwsCallsFromEnv<T>(client: T, env = process.env, session?: AwsCallSession): T {
  const file = env[AWS_CALL_LOG_ENV];
  return file ? recordAwsCalls(client, fileSink(file), session) : client;
}
