/**
 * From a document-client command's input and output to the requests `request-units.ts` prices: which items
 * a write touches (so a meter can look at them before and after), and what a read returned. Pure: the meter
 * (bench/cost-profile.bench.ts) does the looking. Inputs and outputs are in the document client's native form.
 */
import type { Item, ReadRequest, WriteAction, WriteRequest } from './request-units.ts';

/** One item a write request touches: its key, and for a Put the item it stores. */
export type WriteTarget = { kind: WriteAction['kind']; key: Item; put?: Item };

type Input = Record<string, unknown>;
const bare = (commandName: string) => commandName.replace(/Command$/, '').replace(/Item(s)?$/, '');

const READS: Record<string, ReadRequest['kind']> = {
  Get: 'get',
  BatchGet: 'batchGet',
  Query: 'query',
  Scan: 'scan',
  TransactGet: 'transactGet',
};
const WRITES = new Set(['Put', 'Update', 'Delete', 'TransactWrite', 'BatchWrite']);

export function commandClass(commandName: string): 'read' | 'write' | 'other' {
  const name = bare(commandName);
  return name in READS ? 'read' : WRITES.has(name) ? 'write' : 'other';
}

const keyOf = (item: Item, keyNames: readonly string[]) =>
  Object.fromEntries(keyNames.map((name) => [name, item[name]]));

function target(kind: WriteAction['kind'], part: Input, keyNames: readonly string[]): WriteTarget {
  if (kind === 'put') {
    const item = part.Item as Item;
    return { kind, key: keyOf(item, keyNames), put: item };
  }
  return { kind, key: part.Key as Item };
}

/** The items a write command touches, in request order. */
export function writeTargets(commandName: string, input: Input, keyNames: readonly string[]): WriteTarget[] {
  const name = bare(commandName);
  if (name === 'Put') return [target('put', input, keyNames)];
  if (name === 'Update') return [target('update', input, keyNames)];
  if (name === 'Delete') return [target('delete', input, keyNames)];
  if (name === 'TransactWrite')
    return (input.TransactItems as Input[]).map((entry) => {
      if (entry.Put) return target('put', entry.Put as Input, keyNames);
      if (entry.Update) return target('update', entry.Update as Input, keyNames);
      if (entry.Delete) return target('delete', entry.Delete as Input, keyNames);
      if (entry.ConditionCheck) return target('check', entry.ConditionCheck as Input, keyNames);
      throw new Error('TransactItems: an entry with no Put, Update, Delete or ConditionCheck');
    });
  if (name === 'BatchWrite')
    return Object.values(input.RequestItems as Record<string, Input[]>)
      .flat()
      .map((entry) =>
        entry.PutRequest
          ? target('put', entry.PutRequest as Input, keyNames)
          : target('delete', entry.DeleteRequest as Input, keyNames),
      );
  throw new Error(`${commandName} is not a write`);
}

/**
 * How a write request ended, from what the SDK threw (`undefined`: nothing). `conditionFailed`: a single-item
 * write whose condition was false, billed by AWS (request-units.ts). `canceled`: a TransactWriteItems that
 * DynamoDB canceled (a condition, a conflict); AWS documents no capacity rule for it, so a meter counts the
 * request and keeps its units apart. `unbilled`: anything else (validation, throttling, a network error).
 */
export type WriteOutcome = 'written' | 'conditionFailed' | 'canceled' | 'unbilled';

export function writeOutcome(error: unknown): WriteOutcome {
  if (error === undefined) return 'written';
  const name = (error as { name?: unknown } | null)?.name;
  if (name === 'ConditionalCheckFailedException') return 'conditionFailed';
  if (name === 'TransactionCanceledException') return 'canceled';
  return 'unbilled';
}

/**
 * The write request to price, from its targets and the items as stored before and after it (same order).
 * A Put's item after is the one it sent; a check writes nothing. A `conditionFailed` write wrote nothing: its
 * `after` is the item it would have written (a Put's; an Update's is not known).
 */
export function writeRequest(
  commandName: string,
  targets: readonly WriteTarget[],
  before: readonly (Item | undefined)[],
  after: readonly (Item | undefined)[],
  outcome: 'written' | 'conditionFailed' = 'written',
): WriteRequest {
  const transactional = bare(commandName) === 'TransactWrite';
  if (outcome === 'conditionFailed') {
    if (transactional || targets.length !== 1)
      throw new Error(`${commandName}: only a single-item write fails its condition alone`);
    return {
      transactional,
      conditionFailed: true,
      actions: targets.map((t, index) => ({ kind: t.kind, before: before[index], after: t.put })),
    };
  }
  return {
    transactional,
    actions: targets.map((t, index) => ({
      kind: t.kind,
      before: before[index],
      after: t.kind === 'put' ? t.put : t.kind === 'check' || t.kind === 'delete' ? undefined : after[index],
    })),
  };
}

/** The read request to price, from the command's input and output. */
export function readRequest(commandName: string, input: Input, output: Input): ReadRequest {
  const kind = READS[bare(commandName)];
  if (!kind) throw new Error(`${commandName} is not a read`);
  if (kind === 'get')
    return { kind, consistent: input.ConsistentRead === true, items: [output.Item as Item | undefined] };
  if (kind === 'query' || kind === 'scan')
    return { kind, consistent: input.ConsistentRead === true, items: (output.Items as Item[]) ?? [] };
  if (kind === 'transactGet')
    return {
      kind,
      consistent: true,
      items: ((output.Responses as { Item?: Item }[]) ?? []).map((response) => response.Item),
    };
  // BatchGetItem: each requested key is a GetItem; a key with no item returned still costs its unit.
  const requested = input.RequestItems as Record<string, { Keys: Item[]; ConsistentRead?: boolean }>;
  const responses = (output.Responses as Record<string, Item[]>) ?? {};
  const tables = Object.entries(requested);
  const items = tables.flatMap(([table, { Keys }]) => {
    const found: (Item | undefined)[] = [...(responses[table] ?? [])];
    while (found.length < Keys.length) found.push(undefined);
    return found;
  });
  return { kind, consistent: tables.every(([, request]) => request.ConsistentRead === true), items };
}
