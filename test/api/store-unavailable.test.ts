/**
 * A busy or briefly unreachable DynamoDB (after the SDK's own retries) is a 503 with Retry-After, not a 500:
 * the caller may send the same request again. Other store errors stay 500s. The faults are thrown by the
 * store's own SDK client (a middleware on its stack), for the transaction that creates a workflow or a run.
 */
import {
  InternalServerError,
  ProvisionedThroughputExceededException,
  TransactionCanceledException,
} from '@aws-sdk/client-dynamodb';
import { afterEach, describe, expect, it } from 'vitest';
import { apiHarness, definition } from './helpers.ts';

const h = apiHarness();
let fault: Error | undefined;
h.store.ctx.doc.middlewareStack.add(
  (next, context) => async (args) => {
    if (fault && context.commandName === 'TransactWriteItemsCommand') throw fault;
    return next(args);
  },
  { step: 'initialize', name: 'injectStoreFault' },
);
afterEach(() => {
  fault = undefined;
});

const meta = { $metadata: {} };
const dropped = () => Object.assign(new Error('socket hang up'), { code: 'ECONNRESET' });
const timedOut = () => Object.assign(new Error('request timed out'), { name: 'TimeoutError' });
const cancelled = (...codes: string[]) =>
  new TransactionCanceledException({
    ...meta,
    message: 'Transaction cancelled',
    CancellationReasons: codes.map((Code) => ({ Code })),
  });

async function startRunWith(error: Error) {
  fault = undefined;
  const created = await h.alice.post('/v1/workflows', definition());
  expect(created.status).toBe(201);
  fault = error;
  return h.alice.post(`/v1/workflows/${created.body.workflow.workflowId}/runs`, { input: { n: 1 } });
}

/** `act` while every StartExecution fails with a Step Functions 500 (not a store fault), then starts work again. */
async function whileStartsFail<T>(message: string, act: () => Promise<T>): Promise<T> {
  const start = h.executions.start;
  h.executions.start = async () => {
    throw new InternalServerError({ ...meta, message });
  };
  try {
    return await act();
  } finally {
    h.executions.start = start;
  }
}

/** The workflow's one pending run (the file's other tests leave runs of their own pending). */
async function onlyPendingRunOf(workflowId: string): Promise<{ runId: string }> {
  const { items } = (await h.alice.get(`/v1/runs?workflowId=${workflowId}&status=pending`)).body;
  expect(items).toHaveLength(1);
  return items[0];
}

describe('a store that is busy or briefly away', () => {
  it.each([
    ['DynamoDB 500 (InternalServerError)', () => new InternalServerError({ ...meta, message: 'internal' })],
    ['a timeout', timedOut],
    ['a dropped connection', dropped],
    ['transaction conflicts only', () => cancelled('None', 'TransactionConflict')],
  ])('%s answers a run start with 503 unavailable and Retry-After', async (_name, make) => {
    const reply = await startRunWith(make());
    expect({
      status: reply.status,
      code: reply.body.error.code,
      retryAfter: reply.headers.get('retry-after'),
    }).toEqual({ status: 503, code: 'unavailable', retryAfter: '1' });
  });

  it('answers a throttled workflow creation with 503 throttled and Retry-After', async () => {
    fault = new ProvisionedThroughputExceededException({ ...meta, message: 'slow down' });
    const reply = await h.alice.post('/v1/workflows', definition());
    expect({
      status: reply.status,
      code: reply.body.error.code,
      retryAfter: reply.headers.get('retry-after'),
    }).toEqual({ status: 503, code: 'throttled', retryAfter: '1' });
  });

  it('still answers 500 for a store error that retrying would not cure', async () => {
    const invalid = Object.assign(new Error('Item size has exceeded the maximum allowed size'), {
      name: 'ValidationException',
      $fault: 'client',
    });
    expect((await startRunWith(invalid)).status).toBe(500);
    expect((await startRunWith(cancelled('None', 'ValidationError'))).status).toBe(500);
  });

  it("answers another service's fault at the run's start with 503 run_start_pending naming the run, not as the store's", async () => {
    const created = await h.alice.post('/v1/workflows', definition());
    const { workflowId } = created.body.workflow;
    const reply = await whileStartsFail('not the store', () =>
      h.alice.post(`/v1/workflows/${workflowId}/runs`, {}),
    );
    // Unkeyed, and nothing can say whether it started (this port cannot describe): the run stays pending.
    const pending = await onlyPendingRunOf(workflowId);
    expect({
      status: reply.status,
      code: reply.body.error.code,
      retryAfter: reply.headers.get('retry-after'),
      names: reply.body.error.message.includes(`run ${pending.runId} was created`),
    }).toEqual({ status: 503, code: 'run_start_pending', retryAfter: '60', names: true });
  });

  it('answers a keyed start whose execution could not start with 503 run_start_pending; the same request again starts it', async () => {
    const created = await h.alice.post('/v1/workflows', definition());
    const path = `/v1/workflows/${created.body.workflow.workflowId}/runs`;
    const headers = { 'idempotency-key': 'retry-me-1' };
    const first = await whileStartsFail('Step Functions is having a moment', () =>
      h.alice.post(path, { input: { n: 2 } }, { headers }),
    );
    const pending = await onlyPendingRunOf(created.body.workflow.workflowId);
    expect({
      status: first.status,
      code: first.body.error.code,
      retryAfter: first.headers.get('retry-after'),
      message: first.body.error.message,
    }).toEqual({
      status: 503,
      code: 'run_start_pending',
      retryAfter: '5',
      message: `run ${pending.runId} was created but its execution could not be started yet; send the same request with the same Idempotency-Key to start it (within 10 minutes: after that the run is ended failed, ExecutionNotStarted)`,
    });
    const again = await h.alice.post(path, { input: { n: 2 } }, { headers });
    expect({ status: again.status, runId: again.body.run.runId }).toEqual({
      status: 200,
      runId: pending.runId,
    });
    expect(h.executions.starts.filter((s) => s.name === pending.runId)).toHaveLength(1);
  });
});
