/** Test harness for the API: the app on DynamoDB Local with recording ports, and a small client per owner. */
import { randomUUID } from 'node:crypto';
import { ScanCommand } from '@aws-sdk/lib-dynamodb';
import type { ApiDeps } from '../../shared/api/deps.ts';
import { apiKeyAuthenticator, createApiApp } from '../../shared/api/index.ts';
import { localEventBus } from '../../shared/api/routes/local-events.ts';
import type { AnchorSigner, AnchorVerifier } from '../../shared/audit/index.ts';
import type { TurnPointer } from '../../shared/core/outcome.ts';
import { BUILTIN_ENGINE_FACTORIES } from '../../shared/external/builtins.ts';
import { createEngineRegistry, type ExternalEngineRegistry } from '../../shared/external/index.ts';
import type { ApproverReach } from '../../shared/notify/index.ts';
import type { ExecutionsPort, GraphExecutionsPort } from '../../shared/runs/index.ts';
import { DynamoStore } from '../../shared/store/index.ts';
import type { EventBus } from '../../shared/triggers-sync/event-bus.ts';
import { localTriggerSync } from '../../shared/triggers-sync/local.ts';
import type { TriggerSync, TriggerSyncRequest } from '../../shared/triggers-sync/port.ts';
import { FixedClock, minimalWorkflow, randomIds, testStore, uniqueOwner } from '../support/store.ts';
import { createOwnTable } from '../support/table.ts';

/** Records every start and stop; each start gets a predictable execution ARN, derived as Step Functions' is. */
export class RecordingExecutions implements ExecutionsPort {
  readonly starts: { name: string; pointer: TurnPointer }[] = [];
  readonly stops: { executionArn: string; cause: string }[] = [];
  async start(name: string, pointer: TurnPointer) {
    this.starts.push({ name, pointer });
    return { executionArn: `arn:aws:states:local:000000000000:execution:wf-runs:${name}` };
  }
  /** Agent runs only: this port starts no graph or external executions. */
  arnOf(kind: 'agent' | 'graph' | 'external' | undefined, name: string) {
    return kind === undefined || kind === 'agent'
      ? `arn:aws:states:local:000000000000:execution:wf-runs:${name}`
      : undefined;
  }
  async stop(executionArn: string, cause: string) {
    this.stops.push({ executionArn, cause });
  }
}

/** `http-runtime` enabled (at an address nothing listens on: saving never calls it). */
export function testEngineRegistry(): ExternalEngineRegistry {
  return createEngineRegistry(BUILTIN_ENGINE_FACTORIES, {
    'http-runtime': { enabled: true, settings: { endpoint: 'http://127.0.0.1:9' } },
  });
}

/** Records every sync request and passes it on (to the local index sync by default). */
export class RecordingTriggerSync implements TriggerSync {
  readonly requests: TriggerSyncRequest[] = [];
  readonly #inner: TriggerSync | undefined;
  constructor(inner?: TriggerSync) {
    this.#inner = inner;
  }
  async sync(request: TriggerSyncRequest) {
    this.requests.push(request);
    await this.#inner?.sync(request);
  }
}

// biome-ignore lint/suspicious/noExplicitAny: JSON replies are asserted field by field in the tests.
export type Reply = { status: number; headers: Headers; body: any };
type Options = { headers?: Record<string, string>; env?: unknown };

/** A client that calls the app in-process (no server) with one owner's API key. */
export function clientFor(app: ReturnType<typeof createApiApp>, key: string | undefined) {
  const call = async (
    method: string,
    path: string,
    body?: BodyInit,
    options: Options = {},
  ): Promise<Reply> => {
    const headers: Record<string, string> = {
      ...(key ? { authorization: `Bearer ${key}` } : {}),
      ...options.headers,
    };
    const response = await app.request(
      path,
      { method, headers, ...(body !== undefined ? { body } : {}) },
      options.env,
    );
    const text = await response.text();
    return {
      status: response.status,
      headers: response.headers,
      body: text === '' ? undefined : JSON.parse(text),
    };
  };
  const json = (value: unknown, options: Options = {}) => ({
    body: JSON.stringify(value),
    options: { ...options, headers: { 'content-type': 'application/json', ...options.headers } },
  });
  return {
    call,
    get: (path: string, options?: Options) => call('GET', path, undefined, options),
    delete: (path: string, options?: Options) => call('DELETE', path, undefined, options),
    post: (path: string, value?: unknown, options: Options = {}) => {
      if (value === undefined) return call('POST', path, undefined, options);
      const request = json(value, options);
      return call('POST', path, request.body, request.options);
    },
    postText: (path: string, text: string, contentType: string, options: Options = {}) =>
      call('POST', path, text, { ...options, headers: { 'content-type': contentType, ...options.headers } }),
  };
}

/** Recording executions that also start graph runs (the graph machine's ARN derived from the name). */
export class GraphExecutions extends RecordingExecutions implements ExecutionsPort {
  readonly graph: GraphExecutionsPort = {
    start: async (name: string) => ({
      executionArn: `arn:aws:states:local:000000000000:execution:wf-graph:${name}`,
    }),
  };
}

/**
 * The app over `store` with two owners (alice, bob) by API key, executions that start agent and graph runs, and
 * graph task tokens answered by nobody: the owner-isolation checks of run reads.
 */
export function twoOwnerGraphApp(store: DynamoStore) {
  const owners = { alice: uniqueOwner(), bob: uniqueOwner() };
  const apiKeys = { alice: `alice-${randomUUID()}`, bob: `bob-${randomUUID()}` };
  const app = createApiApp({
    store,
    executions: new GraphExecutions(),
    clock: new FixedClock(),
    ids: randomIds,
    authenticator: apiKeyAuthenticator(
      JSON.stringify({
        keys: { [apiKeys.alice]: { owner: owners.alice }, [apiKeys.bob]: { owner: owners.bob } },
      }),
    ),
    triggerSync: localTriggerSync(store),
    graph: { taskTokens: { sendSuccess: async () => {} } },
  });
  return { owners, alice: clientFor(app, apiKeys.alice), bob: clientFor(app, apiKeys.bob) };
}

/** The app with two owners (alice, bob), recording ports and the local events route. */
export function apiHarness(
  options: {
    local?: boolean;
    alertTopicArns?: string[];
    /** Declared topics only some owners may name. */
    alertTopicOwners?: Record<string, string[]>;
    eventBus?: EventBus;
    audit?: { signer: AnchorSigner; verifier: AnchorVerifier };
    /** Owner ids of alice and bob (default: unique plain ids). */
    owners?: { alice: string; bob: string };
    approverReach?: ApproverReach;
    /**
     * A table of the test file's own (`await ownTableName()`): tests that scan for an owner's items
     * (`itemsOf`) then read their own file's items, not every item the whole run wrote to the shared table.
     */
    tableName?: string;
    /** The deployment's engines (default: `http-runtime` enabled, `batch-runner` registered and disabled). */
    externalEngines?: ExternalEngineRegistry | null;
    /** Graph runs' task tokens and human tasks (default: none: a cancel answers no wait, closes no task). */
    graph?: ApiDeps['graph'];
  } = {},
) {
  const store = options.audit
    ? new DynamoStore(testStore(options.tableName).ctx, { signer: options.audit.signer })
    : testStore(options.tableName);
  const clock = new FixedClock();
  const executions = new RecordingExecutions();
  const sync = new RecordingTriggerSync(localTriggerSync(store));
  const owners = options.owners ?? { alice: uniqueOwner(), bob: uniqueOwner() };
  const keys = { alice: `alice-${randomUUID()}`, bob: `bob-${randomUUID()}` };
  const app = createApiApp({
    store,
    executions,
    clock,
    ids: randomIds,
    authenticator: apiKeyAuthenticator(
      JSON.stringify({
        keys: {
          [keys.alice]: { owner: owners.alice, principal: 'alice@laptop' },
          [keys.bob]: { owner: owners.bob },
        },
      }),
    ),
    triggerSync: sync,
    ...(options.audit ? { auditVerifier: options.audit.verifier } : {}),
    ...(options.alertTopicArns ? { alertTopicArns: options.alertTopicArns } : {}),
    ...(options.alertTopicOwners ? { alertTopicOwners: options.alertTopicOwners } : {}),
    ...(options.local === false ? {} : { local: { events: localEventBus } }),
    ...(options.eventBus ? { eventBus: options.eventBus } : {}),
    ...(options.approverReach ? { approverReach: options.approverReach } : {}),
    ...(options.graph ? { graph: options.graph } : {}),
    ...(options.externalEngines === null
      ? {}
      : { externalEngines: options.externalEngines ?? testEngineRegistry() }),
  });
  return {
    app,
    store,
    clock,
    executions,
    sync,
    owners,
    keys,
    alice: clientFor(app, keys.alice),
    bob: clientFor(app, keys.bob),
    anonymous: clientFor(app, undefined),
  };
}

/** A unique, valid workflow definition (names are unique per owner; tests share the table). */
export const definition = (overrides: Record<string, unknown> = {}) =>
  minimalWorkflow({ name: `flow-${randomUUID().slice(0, 8)}`, ...overrides });

/** A fresh table for one test file's harnesses (created on the run's DynamoDB Local). */
export const ownTableName = async () => (await createOwnTable('wf-api')).tableName;

/** The pages of a scan for `owner`'s items (by key, index key or owner attribute). A full scan of the table. */
async function* ownerItemPages(store: DynamoStore, owner: string): AsyncGenerator<Record<string, unknown>[]> {
  let startKey: Record<string, unknown> | undefined;
  do {
    const response = await store.ctx.doc.send(
      new ScanCommand({
        TableName: store.ctx.table,
        FilterExpression:
          'contains(pk, :o) OR contains(sk, :o) OR contains(gsi1pk, :o) OR contains(gsi2pk, :o) OR #owner = :o',
        ExpressionAttributeNames: { '#owner': 'owner' },
        ExpressionAttributeValues: { ':o': owner },
        ExclusiveStartKey: startKey,
      }),
    );
    yield response.Items ?? [];
    startKey = response.LastEvaluatedKey;
  } while (startKey);
}

/**
 * How many items in the table belong to `owner` (by key, index key or owner attribute). A full scan: give a
 * harness that counts items a table of its own (`tableName: await ownTableName()`); on the shared table the
 * scan reads every item the whole run wrote so far (seconds per scan late in the suite).
 */
export async function itemsOf(store: DynamoStore, owner: string): Promise<number> {
  let count = 0;
  for await (const items of ownerItemPages(store, owner)) count += items.length;
  return count;
}

/** Every item of `owner`'s in the table (as `itemsOf` finds them), each as JSON with sorted keys, sorted. */
export async function ownerSnapshot(store: DynamoStore, owner: string): Promise<string[]> {
  const snapshot: string[] = [];
  for await (const items of ownerItemPages(store, owner))
    for (const item of items)
      snapshot.push(
        JSON.stringify(Object.fromEntries(Object.entries(item).sort(([x], [y]) => (x < y ? -1 : 1)))),
      );
  return snapshot.sort();
}
