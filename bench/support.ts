/** Benchmark support: a private DynamoDB Local with the table, and a DynamoDB operation counter. */
import { CreateTableCommand } from '@aws-sdk/client-dynamodb';
import { startDynamoDbLocal } from '../shared/local/dynamodb-local.ts';
import { DynamoStore } from '../shared/store/index.ts';
import { createTableInput } from '../shared/store/table.ts';

export type OpCounts = {
  reads: number;
  writes: number;
  transactItems: number;
  byCommand: Record<string, number>;
};

const READS = new Set([
  'GetCommand',
  'QueryCommand',
  'GetItemCommand',
  'BatchGetCommand',
  'BatchGetItemCommand',
]);

export async function benchStore() {
  const local = await startDynamoDbLocal();
  const store = new DynamoStore({ endpoint: local.endpoint, tableName: 'wf-bench' });
  await store.ctx.doc.send(new CreateTableCommand(createTableInput('wf-bench')));
  const counts: OpCounts = { reads: 0, writes: 0, transactItems: 0, byCommand: {} };
  countRequests(store, counts);
  /**
   * Another container's store on the same table (a function of its own on AWS, e.g. the approval pages'),
   * its requests counted in the same `counts`.
   */
  const otherContainer = () => {
    const other = new DynamoStore({ endpoint: local.endpoint, tableName: 'wf-bench' });
    countRequests(other, counts);
    return other;
  };
  const reset = () => {
    counts.reads = 0;
    counts.writes = 0;
    counts.transactItems = 0;
    counts.byCommand = {};
  };
  return { store, counts, reset, otherContainer, stop: () => local.stop() };
}

/** Adds every request `store` sends to `counts`: reads, writes, and the items of each transaction. */
function countRequests(store: DynamoStore, counts: OpCounts): void {
  store.ctx.doc.middlewareStack.add(
    (next, context) => async (args) => {
      const name = String(context.commandName);
      counts.byCommand[name] = (counts.byCommand[name] ?? 0) + 1;
      if (READS.has(name)) counts.reads += 1;
      else counts.writes += 1;
      const items = (args.input as { TransactItems?: unknown[] }).TransactItems;
      if (items) counts.transactItems += items.length;
      return next(args);
    },
    { step: 'initialize', name: 'benchCounter' },
  );
}

export function printTable(title: string, rows: Record<string, string | number>[]): void {
  console.log(`\n${title}`);
  console.table(rows);
}

/**
 * The `loop` fixture of the turn benches: `turns - 1` turns each calling `notes_append` with a line of
 * `lineBytes` filler, then a final answer; `usage` is what each tool turn reports.
 */
export function notesLoopFixture(args: {
  turns: number;
  lineBytes: number;
  usage: { input_tokens: number; output_tokens: number };
}) {
  return {
    name: 'loop',
    turns: [
      ...Array.from({ length: args.turns - 1 }, (_, i) => ({
        response: {
          content: [
            {
              type: 'tool_use' as const,
              name: 'notes_append',
              input: { name: 'log', line: `turn ${i} ${'x'.repeat(args.lineBytes)}` },
            },
          ],
          usage: args.usage,
        },
      })),
      { text: 'done' },
    ],
  };
}
