/**
 * The SET/REMOVE expression builder (shared/store/update-expression.ts): what it emits, what it refuses before
 * anything is sent, and that DynamoDB Local applies what it emits to attributes named by reserved words
 * (https://docs.aws.amazon.com/amazondynamodb/latest/developerguide/Expressions.UpdateExpressions.html,
 * reserved words: https://docs.aws.amazon.com/amazondynamodb/latest/developerguide/ReservedWords.html).
 */
import { randomUUID } from 'node:crypto';
import { GetCommand, PutCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { describe, expect, it } from 'vitest';
import type { LedgerRow } from '../../shared/schemas/ledger.ts';
import type { Run } from '../../shared/schemas/run.ts';
import { ledgerSettleUpdate } from '../../shared/store/ledger-settle.ts';
import { runUpdate } from '../../shared/store/run-update.ts';
import { updateExpression } from '../../shared/store/update-expression.ts';
import { testStore } from '../support/store.ts';

describe('Function: updateExpression', () => {
  it('puts every attribute, reserved words included, behind a placeholder numbered in order', () => {
    // Act
    const parts = updateExpression(
      [
        ['status', 'done'],
        ['name', 'n'],
        ['count', 2],
      ],
      { prefix: 'a' },
    );

    // Assess
    expect(parts).toEqual({
      UpdateExpression: 'SET #a0 = :a0, #a1 = :a1, #a2 = :a2',
      ExpressionAttributeNames: { '#a0': 'status', '#a1': 'name', '#a2': 'count' },
      ExpressionAttributeValues: { ':a0': 'done', ':a1': 'n', ':a2': 2 },
    });
  });

  it('removes the attributes whose value is undefined, after the SET clause, numbering them in the same count', () => {
    // Act
    const parts = updateExpression(
      [
        ['lease', undefined],
        ['status', 'done'],
        ['name', undefined],
      ],
      { prefix: 'a' },
    );

    // Assess: a removed attribute has a name placeholder and no value placeholder (DynamoDB refuses unused ones).
    expect(parts).toEqual({
      UpdateExpression: 'SET #a1 = :a1 REMOVE #a0, #a2',
      ExpressionAttributeNames: { '#a0': 'lease', '#a1': 'status', '#a2': 'name' },
      ExpressionAttributeValues: { ':a1': 'done' },
    });
  });

  it('with nothing to set, is a REMOVE clause alone', () => {
    // Act
    const parts = updateExpression([['name', undefined]], { prefix: 'r' });

    // Assess
    expect(parts).toEqual({
      UpdateExpression: 'REMOVE #r0',
      ExpressionAttributeNames: { '#r0': 'name' },
      ExpressionAttributeValues: {},
    });
  });

  it("puts the condition's placeholders first and shares a name placeholder with it", () => {
    // Act
    const parts = updateExpression(
      [
        ['note', 'x'],
        ['status', 'done'],
        ['turn', 3],
      ],
      {
        prefix: 's',
        condition: { names: { '#status': 'status' }, values: { ':pending': 'pending' } },
        placeholders: { status: ['#status', ':status'] },
      },
    );

    // Assess: the own placeholder does not use up a number; the maps keep the condition's entries first.
    expect(parts.UpdateExpression).toBe('SET #s0 = :s0, #status = :status, #s1 = :s1');
    expect(JSON.stringify(parts.ExpressionAttributeNames)).toBe(
      '{"#status":"status","#s0":"note","#s1":"turn"}',
    );
    expect(JSON.stringify(parts.ExpressionAttributeValues)).toBe(
      '{":pending":"pending",":s0":"x",":status":"done",":s1":3}',
    );
  });

  it.each([
    ['no change at all', [], {}, 'no attribute to set or remove'],
    [
      'an attribute changed twice',
      [
        ['status', 'a'],
        ['status', undefined],
      ],
      {},
      "attribute 'status' is changed twice",
    ],
    [
      'a name placeholder the condition gives another attribute',
      [['owner', 'o']],
      { condition: { names: { '#a0': 'status' }, values: {} } },
      "placeholder '#a0' names both 'status' and 'owner'",
    ],
    [
      "a value placeholder the condition's already is",
      [['rev', 2]],
      {
        condition: { names: { '#rev': 'rev' }, values: { ':rev': 1 } },
        placeholders: { rev: ['#rev', ':rev'] },
      },
      "value placeholder ':rev' (for 'rev') is already in use",
    ],
  ] as const)('refuses %s, naming it', (_case, changes, options, message) => {
    // Act / Assess
    expect(() => updateExpression(changes, { prefix: 'a', ...options })).toThrow(message);
  });

  it('emits an Update DynamoDB applies to attributes named by reserved words', async () => {
    // Prepare
    const { ctx } = testStore();
    const Key = { pk: `TEST#update-expression#${randomUUID()}`, sk: 'item' };
    await ctx.doc.send(
      new PutCommand({ TableName: ctx.table, Item: { ...Key, status: 'pending', name: 'old', size: 1 } }),
    );

    // Act
    await ctx.doc.send(
      new UpdateCommand({
        TableName: ctx.table,
        Key,
        ...updateExpression(
          [
            ['status', 'done'],
            ['name', undefined],
            ['comment', { by: 'me' }],
          ],
          { prefix: 'a' },
        ),
      }),
    );

    // Assess
    const { Item } = await ctx.doc.send(new GetCommand({ TableName: ctx.table, Key, ConsistentRead: true }));
    expect(Item).toEqual({ ...Key, status: 'done', size: 1, comment: { by: 'me' } });
  });
});

/**
 * The two Updates built with it, pinned byte for byte: the request the store sends for a run commit and a ledger
 * settle is the one it sent before the builder was lifted out of them (key order of the maps included).
 */
describe('Its callers', () => {
  it('runUpdate sends the same request as ever', () => {
    // Prepare: a run that changes status, drops its reservation and gains an error.
    const run = {
      runId: 'run_1',
      owner: 'o',
      workflowId: 'w',
      createdAt: '2026-11-30T07:00:00.000Z',
      rev: 3,
      status: 'pending',
      reservation: { turn: 0 },
      turn: 0,
    } as unknown as Run;
    const next = { ...run, rev: 4, status: 'failed', reservation: undefined, error: { message: 'x' } } as Run;

    // Act
    const request = runUpdate('T', run, next);

    // Assess
    expect(JSON.stringify(request)).toBe(
      JSON.stringify({
        Update: {
          TableName: 'T',
          Key: { pk: 'RUN#run_1', sk: 'RUN' },
          UpdateExpression: 'SET #rev = :next, #a0 = :a0, #a2 = :a2 REMOVE #a1',
          ConditionExpression: '#rev = :rev',
          ExpressionAttributeNames: { '#rev': 'rev', '#a0': 'status', '#a1': 'reservation', '#a2': 'error' },
          ExpressionAttributeValues: { ':rev': 3, ':next': 4, ':a0': 'failed', ':a2': { message: 'x' } },
        },
      }),
    );
  });

  it('ledgerSettleUpdate sends the same request as ever', () => {
    // Prepare
    const row: LedgerRow = {
      schemaVersion: 1,
      runId: 'run_1',
      toolUseId: 'toolu_1',
      turn: 0,
      tool: 'notes_append',
      argsHash: 'a'.repeat(64),
      idempotent: false,
      idempotencyKey: 'wf-toolu_1',
      status: 'completed',
      attempts: 1,
      outcome: { content: 'ok', isError: false },
      createdAt: '2026-11-30T07:00:00.000Z',
      settledAt: '2026-11-30T07:00:01.000Z',
    };

    // Act
    const request = ledgerSettleUpdate('T', row);

    // Assess
    expect(JSON.stringify(request)).toBe(
      JSON.stringify({
        Update: {
          TableName: 'T',
          Key: { pk: 'RUN#run_1', sk: 'TOOL#toolu_1' },
          UpdateExpression: 'SET #status = :status, #s0 = :s0, #s1 = :s1, #s2 = :s2',
          ConditionExpression: '#status = :pending',
          ExpressionAttributeNames: {
            '#status': 'status',
            '#s0': 'attempts',
            '#s1': 'outcome',
            '#s2': 'settledAt',
          },
          ExpressionAttributeValues: {
            ':pending': 'pending',
            ':status': 'completed',
            ':s0': 1,
            ':s1': { content: 'ok', isError: false },
            ':s2': '2026-11-30T07:00:01.000Z',
          },
        },
      }),
    );
  });
});
