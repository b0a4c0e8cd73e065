/**
 * Where a plain turn's CPU goes, for bench/turn-flame.ts: a run's DynamoDB requests and model calls recorded as
 * the runtime sent them, then sent again as they were with no runtime code around them (the DynamoDB requests
 * through the same document client, to a fresh table holding what the run started from; the model calls
 * through the same model port). The CPU the replays take is what those requests cost by themselves (the SDKs,
 * HTTP, JSON, the in-process scripted server); the rest of the runtime's CPU is its own code.
 */
import { CreateTableCommand } from '@aws-sdk/client-dynamodb';
import {
  BatchGetCommand,
  BatchWriteCommand,
  DeleteCommand,
  GetCommand,
  PutCommand,
  QueryCommand,
  TransactGetCommand,
  TransactWriteCommand,
  UpdateCommand,
} from '@aws-sdk/lib-dynamodb';
import type { ModelPort, ModelRequest } from '../shared/core/ports.ts';
import type { DynamoStore } from '../shared/store/index.ts';
import { createTableInput } from '../shared/store/table.ts';

type Sent = { command: string; input: Record<string, unknown> };

/** The document client's command for each command name the client reports. */
const COMMANDS: Record<string, new (input: never) => unknown> = {
  GetItemCommand: GetCommand,
  QueryCommand: QueryCommand,
  BatchGetItemCommand: BatchGetCommand,
  TransactWriteItemsCommand: TransactWriteCommand,
  TransactGetItemsCommand: TransactGetCommand,
  UpdateItemCommand: UpdateCommand,
  PutItemCommand: PutCommand,
  DeleteItemCommand: DeleteCommand,
  BatchWriteItemCommand: BatchWriteCommand,
};

/** `input` addressed to `table` instead (a request's own table name, its transaction items', its batch's). */
function toTable(input: Record<string, unknown>, table: string): Record<string, unknown> {
  const copy: Record<string, unknown> = { ...input };
  if ('TableName' in copy) copy.TableName = table;
  if (Array.isArray(copy.TransactItems))
    copy.TransactItems = copy.TransactItems.map((action: Record<string, Record<string, unknown>>) =>
      Object.fromEntries(Object.entries(action).map(([verb, body]) => [verb, { ...body, TableName: table }])),
    );
  if (copy.RequestItems && typeof copy.RequestItems === 'object')
    copy.RequestItems = { [table]: Object.values(copy.RequestItems)[0] };
  return copy;
}

/** Records what `store` sends and what `model` is asked while `record` runs. */
export function requestTape(store: DynamoStore, model: ModelPort) {
  let sent: Sent[] | undefined;
  let asked: ModelRequest[] | undefined;
  // Outermost (initialize, high): the input as the store gave it, before the store's own middleware.
  store.ctx.doc.middlewareStack.add(
    (next, context) => async (args) => {
      sent?.push({ command: String(context.commandName), input: structuredClone(args.input) as never });
      return next(args);
    },
    { step: 'initialize', priority: 'high', name: 'benchRequestTape' },
  );
  const recordingModel: ModelPort = {
    ...model,
    call: (request) => {
      asked?.push(structuredClone(request));
      return model.call(request);
    },
  };
  return {
    model: recordingModel,
    async record(step: () => Promise<unknown>): Promise<{ sent: Sent[]; asked: ModelRequest[] }> {
      sent = [];
      asked = [];
      try {
        await step();
        return { sent, asked };
      } finally {
        sent = undefined;
        asked = undefined;
      }
    },
  };
}

let tables = 0;

/**
 * Sends `setup` then `requests` again through `store`'s document client to a fresh table; returns the CPU
 * milliseconds of this process the `requests` took (`beforeTiming` runs just before they go). Every conditional write succeeds as it did: the table holds
 * what `setup` wrote (the workflow and the run as seeded), and the run's clock is fixed.
 */
export async function replayRequests(
  store: DynamoStore,
  setup: Sent[],
  requests: Sent[],
  beforeTiming: () => Promise<void> = async () => {},
): Promise<number> {
  const table = `${store.ctx.table}-replay-${++tables}`;
  await store.ctx.doc.send(new CreateTableCommand(createTableInput(table)));
  const send = async ({ command, input }: Sent) => {
    const Command = COMMANDS[command];
    if (!Command) throw new Error(`no replay for ${command}`);
    await store.ctx.doc.send(new Command(toTable(input, table) as never) as never);
  };
  for (const request of setup) await send(request);
  await beforeTiming();
  const cpu = process.cpuUsage();
  for (const request of requests) await send(request);
  const used = process.cpuUsage(cpu);
  return (used.user + used.system) / 1000;
}

/** Asks `model` again what it was asked, in order; returns the CPU milliseconds of this process taken. */
export async function replayModelCalls(model: ModelPort, asked: ModelRequest[]): Promise<number> {
  const cpu = process.cpuUsage();
  for (const request of asked) await model.call(request);
  const used = process.cpuUsage(cpu);
  return (used.user + used.system) / 1000;
}
