/**
 * Graph step items: the conditional write that `commit` puts into a run's transaction, and the one read that
 * loads a graph run with its steps (and, on request, its ledger rows) in a single strongly consistent Query.
 */
import { GetCommand, PutCommand, QueryCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { StepConflictError } from '../core/store-errors.ts';
import { type GraphStep, GraphStepSchema, type StepWrite } from '../schemas/graph-step.ts';
import { type LedgerRow, LedgerRowSchema } from '../schemas/ledger.ts';
import { type Run, RunSchema } from '../schemas/run.ts';
import type { StoreContext } from './client.ts';
import { decodeItem } from './codec.ts';
import { keys, prefixes } from './keys.ts';

/** The transaction item of one step write, with the error its failed condition means. */
export function stepWriteItem(table: string, write: StepWrite) {
  const { step, expect } = write;
  const condition =
    expect === 'absent'
      ? { ConditionExpression: 'attribute_not_exists(pk)' }
      : {
          ConditionExpression: '#status = :status AND attempt = :attempt',
          ExpressionAttributeNames: { '#status': 'status' },
          ExpressionAttributeValues: { ':status': expect.status, ':attempt': expect.attempt },
        };
  return {
    item: {
      Put: { TableName: table, Item: { ...keys.step(step.runId, step.stepId), ...step }, ...condition },
    },
    onConditionFailed: () => new StepConflictError(step.runId, step.stepId),
  };
}

export type GraphRunItems = { run: Run; steps: GraphStep[]; ledger: LedgerRow[] };

/**
 * The run item, its steps and (with `ledger`) its ledger rows: one Query over the sort-key range from `RUN`
 * to the end of `STEP#` (or of `TOOL#`), which holds exactly those items (keys.ts). Undefined for no run.
 *
 * With `owner`, undefined too for another owner's run, decided on the first page: `RUN` is the range's lower
 * bound, so the run item is the first item of the first page when it exists. A foreign run then costs the
 * same one request as a missing id, whatever the size of its steps, and none of its steps is decoded (the
 * number of round trips would otherwise tell a foreign run from a missing one).
 */
export async function loadGraphRun(
  ctx: StoreContext,
  runId: string,
  options: { ledger?: boolean; owner?: string } = {},
): Promise<GraphRunItems | undefined> {
  const pk = keys.run(runId).pk;
  const upper = options.ledger ? `${prefixes.ledger.slice(0, -1)}$` : `${prefixes.step.slice(0, -1)}$`;
  const items: Record<string, unknown>[] = [];
  let run: Run | undefined;
  let startKey: Record<string, unknown> | undefined;
  do {
    const response = await ctx.doc.send(
      new QueryCommand({
        TableName: ctx.table,
        KeyConditionExpression: 'pk = :pk AND sk BETWEEN :from AND :to',
        ExpressionAttributeValues: { ':pk': pk, ':from': 'RUN', ':to': upper },
        ConsistentRead: true,
        ExclusiveStartKey: startKey,
      }),
    );
    const page = response.Items ?? [];
    if (run === undefined) {
      // The first page: no run item first means no run (the range starts at `RUN`).
      const first = page[0];
      if (first?.sk !== 'RUN') return undefined;
      run = decodeItem(RunSchema, first);
      if (options.owner !== undefined && run.owner !== options.owner) return undefined;
      items.push(...page.slice(1));
    } else items.push(...page);
    startKey = response.LastEvaluatedKey;
  } while (startKey);
  const of = (prefix: string) => items.filter((item) => String(item.sk).startsWith(prefix));
  return {
    run,
    steps: of(prefixes.step).map((item) => decodeItem(GraphStepSchema, item)),
    ledger: of(prefixes.ledger).map((item) => decodeItem(LedgerRowSchema, item)),
  };
}

/** What storing a resume wait's token did: stored it, found it already stored, or found a later wait's. */
export type ResumeTokenPut = 'stored' | 'current' | 'superseded';

/**
 * The task token a paused graph run's execution waits on (AwaitResume); replaced by each later wait only.
 * With `fence` (shared/graph-run/wait-fence.ts) the put is conditional: it replaces no token of a later
 * attempt (`superseded`: a retried attempt of this wait stored its own, and this token is dead), and a repeat
 * of the same attempt (same fence, same token) changes nothing (`current`: an answered wait stays answered).
 * Without one (an execution of an earlier definition) it replaces only a token stored without one.
 */
export async function putResumeToken(
  ctx: StoreContext,
  runId: string,
  token: string,
  fence?: string,
): Promise<ResumeTokenPut> {
  const names = { '#fence': 'fence', '#token': 'token' };
  const condition =
    fence === undefined
      ? {
          ConditionExpression: 'attribute_not_exists(#fence)',
          ExpressionAttributeNames: { '#fence': 'fence' },
        }
      : {
          ConditionExpression:
            'attribute_not_exists(#fence) OR #fence < :fence OR (#fence = :fence AND #token <> :token)',
          ExpressionAttributeNames: names,
          ExpressionAttributeValues: { ':fence': fence, ':token': token },
        };
  try {
    await ctx.doc.send(
      new PutCommand({
        TableName: ctx.table,
        Item: {
          ...keys.resumeToken(runId),
          schemaVersion: 1,
          token,
          ...(fence === undefined ? {} : { fence }),
        },
        ...condition,
      }),
    );
    return 'stored';
  } catch (error) {
    if ((error as { name?: string }).name !== 'ConditionalCheckFailedException') throw error;
  }
  const stored = await ctx.doc.send(
    new GetCommand({ TableName: ctx.table, Key: keys.resumeToken(runId), ConsistentRead: true }),
  );
  return stored.Item?.token === token ? 'current' : 'superseded';
}

/** The token of the run's last AwaitResume wait, unless that wait is known to be answered. */
export async function getResumeToken(ctx: StoreContext, runId: string): Promise<string | undefined> {
  const response = await ctx.doc.send(
    new GetCommand({ TableName: ctx.table, Key: keys.resumeToken(runId), ConsistentRead: true }),
  );
  const token = response.Item?.token;
  return typeof token === 'string' && response.Item?.answered !== true ? token : undefined;
}

/**
 * Records that `token`'s wait was answered (a resume got through): conditional on the token still being the
 * stored one, so a newer wait's token is never marked. An update, so the wait's fence stays on the item.
 */
export async function settleResumeToken(ctx: StoreContext, runId: string, token: string): Promise<void> {
  try {
    await ctx.doc.send(
      new UpdateCommand({
        TableName: ctx.table,
        Key: keys.resumeToken(runId),
        UpdateExpression: 'SET answered = :answered',
        ConditionExpression: '#token = :token',
        ExpressionAttributeNames: { '#token': 'token' },
        ExpressionAttributeValues: { ':token': token, ':answered': true },
      }),
    );
  } catch (error) {
    // A newer wait replaced the token: it is that wait's to answer.
    if ((error as { name?: string }).name !== 'ConditionalCheckFailedException') throw error;
  }
}
