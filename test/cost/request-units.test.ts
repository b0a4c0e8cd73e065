import { describe, expect, it } from 'vitest';
import { billedItemBytes, numberBytes } from '../../shared/cost/item-bytes.ts';
import {
  commandClass,
  readRequest,
  writeOutcome,
  writeRequest,
  writeTargets,
} from '../../shared/cost/metered-command.ts';
import { type IndexShape, readUnits, writeUnits } from '../../shared/cost/request-units.ts';

/** An item of exactly `bytes` billed bytes: `pk` (2 + 1) and `d` (1 + the padding). */
const sized = (bytes: number, extra: Record<string, unknown> = {}) => {
  const base = { pk: 'x', ...extra };
  return { ...base, d: 'a'.repeat(bytes - billedItemBytes(base) - 1) };
};
const KB = 1024;
const GSI1: IndexShape = { name: 'gsi1', partitionKey: 'gsi1pk', sortKey: 'gsi1sk', projection: 'ALL' };

describe('Function: billedItemBytes (CapacityUnitCalculations.html)', () => {
  it('counts attribute names and UTF-8 string bytes', () => {
    expect(billedItemBytes({ Id: 'abc', é: 'ü' })).toBe(2 + 3 + 2 + 2);
  });
  it('sizes a number by its significant digits: 1 byte per two, + 1', () => {
    expect(numberBytes(123.45)).toBe(4); // 5 digits
    expect(numberBytes(1000)).toBe(2); // trailing zeroes trimmed
    expect(numberBytes(0.001)).toBe(2); // leading zeroes trimmed
    expect(numberBytes(0.1)).toBe(2); // no float noise
    expect(numberBytes(-12)).toBe(2);
  });
  it('sizes a map or list as 3 bytes + 1 per element + the elements, null and booleans 1 byte', () => {
    expect(billedItemBytes({ m: { a: 'xy', b: true }, l: [null, 'z'] })).toBe(
      1 + (3 + (1 + 1 + 2) + (1 + 1 + 1)) + 1 + (3 + (1 + 1) + (1 + 1)),
    );
  });
  it('sized() builds items of an exact size (the cases below rely on it)', () => {
    expect(billedItemBytes(sized(1500))).toBe(1500);
  });
});

describe('Function: readUnits (read-write-operations.html examples)', () => {
  it('a 3,500-byte item read strongly costs the same as a 4 KB item: 1 RRU', () => {
    expect(readUnits({ kind: 'get', consistent: true, items: [sized(3500)] })).toBe(1);
  });
  it('an 8 KB item: 2 RRU strongly, 1 eventually, 4 transactionally', () => {
    const items = [sized(8 * KB)];
    expect(readUnits({ kind: 'get', consistent: true, items })).toBe(2);
    expect(readUnits({ kind: 'get', consistent: false, items })).toBe(1);
    expect(readUnits({ kind: 'transactGet', consistent: true, items })).toBe(4);
  });
  it('a 10 KB item rounds up to 12 KB: 3 RRU strongly', () => {
    expect(readUnits({ kind: 'get', consistent: true, items: [sized(10 * KB)] })).toBe(3);
  });
  it('BatchGetItem of 1.5 KB and 6.5 KB rounds each: 4 KB + 8 KB = 3 RRU; a Query of the same sums: 2 RRU', () => {
    const items = [sized(1.5 * KB), sized(6.5 * KB)];
    expect(readUnits({ kind: 'batchGet', consistent: true, items })).toBe(3);
    expect(readUnits({ kind: 'query', consistent: true, items })).toBe(2);
    expect(readUnits({ kind: 'query', consistent: false, items })).toBe(1);
  });
  it('a read of a missing item still costs one unit (half if eventually consistent)', () => {
    expect(readUnits({ kind: 'get', consistent: true, items: [undefined] })).toBe(1);
    expect(readUnits({ kind: 'query', consistent: false, items: [] })).toBe(0.5);
  });
});

describe('Function: writeUnits (read-write-operations.html, transaction-apis.html, GSI.html)', () => {
  const put = (after: Record<string, unknown>, before?: Record<string, unknown>) => ({
    kind: 'put' as const,
    after,
    before,
  });
  it('transaction-apis.html: three 500-byte items in one transaction cost 2 WRU each: 6', () => {
    const actions = [put(sized(500)), put(sized(500)), put(sized(500))];
    expect(writeUnits({ transactional: true, actions }, [])).toBe(6);
    expect(writeUnits({ transactional: false, actions }, [])).toBe(3);
  });
  it("the teammate's finding: 4 audit items of 0.4-0.6 KB transactionally are 8 WRU; 3 of 1.5 KB are 12", () => {
    const small = [400, 450, 550, 600].map((bytes) => put(sized(bytes)));
    expect(writeUnits({ transactional: true, actions: small }, [])).toBe(8);
    const large = [0, 1, 2].map(() => put(sized(1.5 * KB)));
    expect(writeUnits({ transactional: true, actions: large }, [])).toBe(12);
  });
  it('a Put that replaces an item, and an Update, count the larger of before and after', () => {
    expect(writeUnits({ transactional: false, actions: [put(sized(500), sized(2500))] }, [])).toBe(3);
    const update = { kind: 'update' as const, before: sized(900), after: sized(1100) };
    expect(writeUnits({ transactional: false, actions: [update] }, [])).toBe(2);
  });
  it('a Delete counts the deleted item; a ConditionCheck in a transaction counts the checked item twice', () => {
    expect(writeUnits({ transactional: false, actions: [{ kind: 'delete', before: sized(1500) }] }, [])).toBe(
      2,
    );
    const check = { kind: 'check' as const, before: sized(300) };
    expect(writeUnits({ transactional: true, actions: [check] }, [GSI1])).toBe(2);
  });
  it('a GSI adds a standard write of the projected item; an item without its keys is not written to it', () => {
    const indexed = sized(1500, { gsi1pk: 'OWNER#a', gsi1sk: 'RUN#1' });
    expect(writeUnits({ transactional: true, actions: [put(indexed)] }, [GSI1])).toBe(2 * 2 + 2);
    expect(writeUnits({ transactional: true, actions: [put(sized(1500))] }, [GSI1])).toBe(4);
    const partKey = sized(1500, { gsi1pk: 'OWNER#a' }); // no sort key: not in the index
    expect(writeUnits({ transactional: false, actions: [put(partKey)] }, [GSI1])).toBe(2);
  });
  it('an update that changes an index key is a delete + a put on the index; one that keeps it, one write', () => {
    const before = sized(900, { gsi1pk: 'OWNER#a', gsi1sk: 'STATUS#running' });
    const moved = sized(900, { gsi1pk: 'OWNER#a', gsi1sk: 'STATUS#done!!' });
    const kept = sized(1100, { gsi1pk: 'OWNER#a', gsi1sk: 'STATUS#running' });
    expect(
      writeUnits({ transactional: false, actions: [{ kind: 'update', before, after: moved }] }, [GSI1]),
    ).toBe(1 + 1 + 1);
    expect(
      writeUnits({ transactional: false, actions: [{ kind: 'update', before, after: kept }] }, [GSI1]),
    ).toBe(2 + 2);
    // Removing the index key deletes the index entry: one write of the old entry.
    expect(
      writeUnits({ transactional: false, actions: [{ kind: 'update', before, after: sized(900) }] }, [GSI1]),
    ).toBe(1 + 1);
  });
});

describe('Function: writeTargets / writeRequest / readRequest (command inputs and outputs)', () => {
  const keyNames = ['pk', 'sk'];
  it('takes each TransactItems entry, a Put with its item and the others by key', () => {
    const item = { pk: 'R#1', sk: 'AUDIT#1', x: 'y' };
    const targets = writeTargets(
      'TransactWriteItemsCommand',
      {
        TransactItems: [
          { Put: { Item: item } },
          { Update: { Key: { pk: 'R#1', sk: 'RUN' } } },
          { ConditionCheck: { Key: { pk: 'W#1', sk: 'HEAD' } } },
        ],
      },
      keyNames,
    );
    expect(targets).toEqual([
      { kind: 'put', key: { pk: 'R#1', sk: 'AUDIT#1' }, put: item },
      { kind: 'update', key: { pk: 'R#1', sk: 'RUN' } },
      { kind: 'check', key: { pk: 'W#1', sk: 'HEAD' } },
    ]);
    const head = sized(300);
    const run = sized(1500);
    const request = writeRequest(
      'TransactWriteItemsCommand',
      targets,
      [undefined, sized(1400), head],
      [undefined, run, head],
    );
    expect(request.transactional).toBe(true);
    // put 1 KB × 2 + update max(1400, 1500) → 2 KB × 2 + check 1 KB × 2
    expect(writeUnits(request, [])).toBe(2 + 4 + 2);
  });
  it('classifies commands by name, document-client or low-level', () => {
    expect(commandClass('GetCommand')).toBe('read');
    expect(commandClass('GetItemCommand')).toBe('read');
    expect(commandClass('TransactWriteItemsCommand')).toBe('write');
    expect(commandClass('UpdateCommand')).toBe('write');
    expect(commandClass('DescribeTableCommand')).toBe('other');
  });
  it('a BatchGetItem key with no item returned still counts as a read', () => {
    const request = readRequest(
      'BatchGetItemCommand',
      { RequestItems: { t: { Keys: [{ pk: 'a' }, { pk: 'b' }], ConsistentRead: true } } },
      { Responses: { t: [sized(100)] } },
    );
    expect(request.items).toHaveLength(2);
    expect(readUnits(request)).toBe(2);
  });
});

describe('failed conditional writes (read-write-operations.html: "DynamoDB still consumes write capacity units")', () => {
  const keyNames = ['pk', 'sk'];
  const conditionFailed = Object.assign(new Error('The conditional request failed'), {
    name: 'ConditionalCheckFailedException',
  });
  const canceled = Object.assign(new Error('Transaction cancelled'), {
    name: 'TransactionCanceledException',
  });

  it('tells a failed condition and a canceled transaction from errors AWS does not bill', () => {
    expect(writeOutcome(undefined)).toBe('written');
    expect(writeOutcome(conditionFailed)).toBe('conditionFailed');
    expect(writeOutcome(canceled)).toBe('canceled');
    expect(writeOutcome(Object.assign(new Error('x'), { name: 'ValidationException' }))).toBe('unbilled');
    expect(writeOutcome(new Error('socket hang up'))).toBe('unbilled');
  });

  it("bills the larger of the stored item and the one it would have written (AWS's 300 KB / 310 KB example)", () => {
    const item = sized(310 * KB, { sk: 'RUN' });
    const [target] = writeTargets('PutCommand', { Item: item }, keyNames);
    const request = writeRequest('PutCommand', [target!], [sized(300 * KB)], [], 'conditionFailed');
    expect(writeUnits(request, [])).toBe(310);
  });

  it('bills a failed write of an absent item 1 WRU, and writes nothing to the indexes', () => {
    const item = sized(600, { sk: 'IDEM', gsi1pk: 'o', gsi1sk: 's' });
    const put = writeRequest(
      'PutCommand',
      writeTargets('PutCommand', { Item: item }, keyNames),
      [undefined],
      [],
      'conditionFailed',
    );
    expect(writeUnits(put, [GSI1])).toBe(1);
    const key = { pk: 'R#1', sk: 'RUN' };
    const update = writeRequest(
      'UpdateCommand',
      writeTargets('UpdateCommand', { Key: key }, keyNames),
      [undefined],
      [],
      'conditionFailed',
    );
    expect(writeUnits(update, [GSI1])).toBe(1);
  });

  it('bills a failed Update or Delete by the stored item (2.5 KB: 3 WRU)', () => {
    const key = { pk: 'R#1', sk: 'RUN' };
    const stored = sized(2.5 * KB, { gsi1pk: 'o', gsi1sk: 's' });
    for (const command of ['UpdateCommand', 'DeleteCommand']) {
      const request = writeRequest(
        command,
        writeTargets(command, { Key: key }, keyNames),
        [stored],
        [],
        'conditionFailed',
      );
      expect(writeUnits(request, [GSI1])).toBe(3);
    }
  });

  it('refuses to price a canceled transaction as a failed single write', () => {
    const targets = writeTargets(
      'TransactWriteItemsCommand',
      { TransactItems: [{ Update: { Key: { pk: 'a', sk: 'b' } } }] },
      keyNames,
    );
    expect(() =>
      writeRequest('TransactWriteItemsCommand', targets, [undefined], [], 'conditionFailed'),
    ).toThrow(/single-item/);
  });
});
