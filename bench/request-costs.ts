/**
 * What each kind of DynamoDB request a turn makes costs on the bench's DynamoDB Local, measured alone and
 * interleaved (median), and from those costs the least time a turn can take when it makes only the requests it
 * must: no CPU of the runtime's own at all. `npm run bench:turn` prints it beside the measured loops, so the
 * runtime ÷ floor goal can be read against what the invariants' requests alone cost on the same store.
 *
 * Item sizes follow the runtime's plain turn (its request-bytes table): a run update of ~750 bytes, an audit
 * entry of ~1.5 KB, a message and a ledger row of ~600 bytes each.
 */
import {
  BatchGetCommand,
  GetCommand,
  PutCommand,
  TransactWriteCommand,
  type TransactWriteCommandInput,
  UpdateCommand,
} from '@aws-sdk/lib-dynamodb';
import type { DynamoStore } from '../shared/store/index.ts';

type TransactItem = NonNullable<TransactWriteCommandInput['TransactItems']>[number];

/** The request kinds, in the order the table prints them. */
export const REQUEST_KINDS = [
  'GetItem (run, strongly consistent)',
  'BatchGetItem (run and workflow head)',
  'UpdateItem (the tool’s own write)',
  'TransactWriteItems, 2 Puts (the floor’s)',
  'TransactWriteItems, 3 items (run fenced, audit, ledger row)',
  'TransactWriteItems, 4 items (run fenced, audit, message, ledger row)',
] as const;
export type RequestKind = (typeof REQUEST_KINDS)[number];

/** Median ms of each request kind over `rounds` interleaved rounds (the first tenth dropped as warm-up). */
export async function measureRequestCosts(
  store: DynamoStore,
  rounds: number,
): Promise<Record<RequestKind, number>> {
  const { doc, table } = store.ctx;
  const pk = `COSTS#${crypto.randomUUID()}`;
  const filler = (bytes: number) => 'x'.repeat(bytes);
  await doc.send(new PutCommand({ TableName: table, Item: { pk, sk: 'RUN', rev: 0, body: filler(700) } }));
  await doc.send(new PutCommand({ TableName: table, Item: { pk, sk: 'WF', body: filler(400) } }));
  let serial = 0;
  const put = (sk: string, bytes: number): TransactItem => ({
    Put: {
      TableName: table,
      Item: { pk, sk, body: filler(bytes) },
      ConditionExpression: 'attribute_not_exists(pk)',
    },
  });
  const runFenced = (rev: number): TransactItem => ({
    Update: {
      TableName: table,
      Key: { pk: `${pk}#fenced`, sk: 'RUN' },
      UpdateExpression: 'SET #rev = :next, #body = :body',
      ConditionExpression: 'attribute_not_exists(#rev) OR #rev = :rev',
      ExpressionAttributeNames: { '#rev': 'rev', '#body': 'body' },
      ExpressionAttributeValues: { ':rev': rev, ':next': rev + 1, ':body': filler(700) },
    },
  });
  let fencedRev = 0;
  const transact = (items: TransactItem[]) => doc.send(new TransactWriteCommand({ TransactItems: items }));
  const requests: Record<RequestKind, () => Promise<unknown>> = {
    'GetItem (run, strongly consistent)': () =>
      doc.send(new GetCommand({ TableName: table, Key: { pk, sk: 'RUN' }, ConsistentRead: true })),
    'BatchGetItem (run and workflow head)': () =>
      doc.send(
        new BatchGetCommand({
          RequestItems: {
            [table]: {
              Keys: [
                { pk, sk: 'RUN' },
                { pk, sk: 'WF' },
              ],
              ConsistentRead: true,
            },
          },
        }),
      ),
    'UpdateItem (the tool’s own write)': () =>
      doc.send(
        new UpdateCommand({
          TableName: table,
          Key: { pk, sk: 'NOTE' },
          UpdateExpression: 'SET #lines = list_append(if_not_exists(#lines, :empty), :line)',
          ExpressionAttributeNames: { '#lines': 'lines' },
          ExpressionAttributeValues: { ':line': ['a line'], ':empty': [] },
        }),
      ),
    'TransactWriteItems, 2 Puts (the floor’s)': () => {
      const n = serial++;
      return transact([
        { Put: { TableName: table, Item: { pk: `${pk}#floor`, sk: 'RUN', rev: n, body: filler(700) } } },
        put(`MSG#${n}`, 1200),
      ]);
    },
    'TransactWriteItems, 3 items (run fenced, audit, ledger row)': () => {
      const n = serial++;
      return transact([runFenced(fencedRev++), put(`AUD#${n}`, 1500), put(`TOOL#${n}`, 1200)]);
    },
    'TransactWriteItems, 4 items (run fenced, audit, message, ledger row)': () => {
      const n = serial++;
      return transact([
        runFenced(fencedRev++),
        put(`AUD#${n}`, 1500),
        put(`MSG#${n}`, 600),
        put(`TOOL#${n}`, 600),
      ]);
    },
  };
  const samples = Object.fromEntries(REQUEST_KINDS.map((kind) => [kind, [] as number[]])) as Record<
    RequestKind,
    number[]
  >;
  const warmUp = Math.ceil(rounds / 10);
  for (let round = 0; round < rounds + warmUp; round++) {
    for (const kind of REQUEST_KINDS) {
      const start = performance.now();
      await requests[kind]();
      if (round >= warmUp) samples[kind].push(performance.now() - start);
    }
  }
  const median = (xs: number[]) => xs.sort((a, b) => a - b)[Math.floor(xs.length / 2)] ?? Number.NaN;
  return Object.fromEntries(REQUEST_KINDS.map((kind) => [kind, median(samples[kind])])) as Record<
    RequestKind,
    number
  >;
}

/**
 * Turns made only of a bare model call and the requests named, each at its median: the least each can take.
 * `toolWrite` says whether the tool's own write is in it (the floor answers tools in memory). The first is the
 * floor itself from its parts, so each can be compared with it on equal terms (no CPU on either side).
 */
export function leastTurns(costs: Record<RequestKind, number>, bareMs: number) {
  const get = costs['GetItem (run, strongly consistent)'];
  const tool = costs['UpdateItem (the tool’s own write)'];
  const two = costs['TransactWriteItems, 2 Puts (the floor’s)'];
  const three = costs['TransactWriteItems, 3 items (run fenced, audit, ledger row)'];
  const four = costs['TransactWriteItems, 4 items (run fenced, audit, message, ledger row)'];
  return [
    {
      turn: 'the floor, from its parts: model call, GetItem, 2-Put transaction',
      ms: bareMs + get + two,
      toolWrite: false,
    },
    {
      turn: 'least under the invariants: model call, GetItem, two 3-item transactions (pending, settle)',
      ms: bareMs + get + 2 * three,
      toolWrite: false,
    },
    {
      turn: 'the same, the run not read (held by the container)',
      ms: bareMs + 2 * three,
      toolWrite: false,
    },
    {
      turn: 'merged as far as any layout could (audit in the run item, message in the ledger row: two 2-item transactions), the run not read',
      ms: bareMs + 2 * two,
      toolWrite: false,
    },
    {
      turn: 'the runtime’s own requests: model call, BatchGetItem, two 4-item transactions',
      ms: bareMs + costs['BatchGetItem (run and workflow head)'] + 2 * four,
      toolWrite: false,
    },
    {
      turn: 'least under the invariants, with the tool’s own write',
      ms: bareMs + get + 2 * three + tool,
      toolWrite: true,
    },
  ];
}
