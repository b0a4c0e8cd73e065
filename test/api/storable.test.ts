import { describe, expect, it } from 'vitest';
import { exceedsDepth, storableIssues } from '../../shared/api/index.ts';
import { baseGrant } from '../jobs/support.ts';
import { nested } from './fuzz-arbitraries.ts';
import { apiHarness, definition } from './helpers.ts';

const limits = { maxDepth: 4, maxBytes: 1000 };

describe('storableIssues', () => {
  it('accepts ordinary JSON', () => {
    expect(storableIssues({ a: [1, 0.5, -3, 'text 💥', null, true, { b: {} }] }, limits)).toEqual([]);
  });

  it.each([
    [{ n: 1e300 }, 'n', 'is too large to store exactly'],
    [{ n: -(2 ** 60) }, 'n', 'is too large to store exactly'],
    [{ n: 1e-200 }, 'n', 'is too small to store'],
    [{ n: Number.NaN }, 'n', 'must be a finite number'],
    [{ s: 'ok\ud800' }, 's', 'lone surrogate'],
    [{ '': 1 }, '(root)', 'empty field name'],
    [JSON.parse('{"__proto__": 1}'), '__proto__', "'__proto__' is not allowed"],
    [{ ['k'.repeat(1025)]: 1 }, '(root)', 'longer than 1024 characters'],
    [{ a: { b: { c: { d: { e: 1 } } } } }, 'a.b.c.d', 'nested too deeply (at most 4 levels'],
    [{ text: 'x'.repeat(1000) }, '(root)', 'is too large to store: 1011 bytes as JSON, the limit is 1000'],
  ])('refuses %j at %s', (value, path, message) => {
    const issues = storableIssues(value, limits);
    expect(issues).toHaveLength(1);
    expect(issues[0]?.path).toBe(path);
    expect(issues[0]?.message).toContain(message);
  });

  it('locates issues under a given prefix and measures indented size when asked', () => {
    expect(storableIssues([1e300], limits, ['input'])).toEqual([
      { path: 'input[0]', message: expect.stringContaining('too large') },
    ]);
    const list = Array.from({ length: 150 }, () => 1);
    expect(storableIssues(list, { maxDepth: 4, maxBytes: 400 })).toEqual([]);
    expect(storableIssues(list, { maxDepth: 4, maxBytes: 400, indented: true })).toHaveLength(1);
  });

  // DynamoDB's item size counts each list element and map entry 1 byte besides its value, and a number by its
  // digits (https://docs.aws.amazon.com/amazondynamodb/latest/developerguide/CapacityUnitCalculations.html):
  // `[1,1,…]` is 2 bytes an element as JSON but 3 or more stored, so a JSON bound alone lets it past 400 KB.
  it('measures the size as DynamoDB counts it when asked, naming the largest field', () => {
    const value = { note: 'short', xs: Array.from({ length: 300 }, () => 1) };
    const stored = { maxDepth: 4, maxBytes: 1000, maxStoredBytes: 1000 };
    expect(storableIssues(value, { maxDepth: 4, maxBytes: 1000 })).toEqual([]);
    expect(storableIssues(value, stored)).toEqual([
      { path: 'xs', message: expect.stringContaining('bytes as DynamoDB counts them') },
    ]);
    expect(storableIssues(value.xs, stored, ['input'])).toEqual([
      { path: 'input', message: expect.stringContaining('the limit is 1000') },
    ]);
    expect(storableIssues({ xs: value.xs.slice(0, 40) }, stored)).toEqual([]);
  });

  it('walks a very deep value without recursion', () => {
    expect(exceedsDepth(nested(200_000, 'array'), 32)).toBe(true);
    expect(exceedsDepth(nested(31, 'object'), 32)).toBe(false);
    expect(storableIssues(nested(200_000, 'object'), { maxDepth: 24 })[0]?.message).toContain(
      'nested too deeply',
    );
  });
});

describe('a stored value with a constructor field', () => {
  const h = apiHarness();

  // Found by test/api/fuzz.test.ts (FUZZ_SEED=1687598841 FUZZ_SCALE=4): the marshaller refused the item, a 500.
  // The store keeps such a field as it is (shared/store/own-constructor-keys.ts).
  it('is stored as given when a run starts', async () => {
    const created = await h.alice.post('/v1/workflows', definition());
    const path = `/v1/workflows/${created.body.workflow.workflowId}/runs`;
    const input = { ticket: 42, constructor: '\u0000', nested: { constructor: { name: 'String' } } };
    const reply = await h.alice.post(path, { input });
    expect(reply.status).toBe(201);
    const read = await h.alice.get(`/v1/runs/${reply.body.run.runId}`);
    expect(read.body.run.input).toEqual(input);
    expect(h.executions.starts).toHaveLength(1);
  });
});

describe('a workflow version', () => {
  const h = apiHarness();
  const external = {
    kind: 'external',
    name: 'many-numbers',
    engine: 'http-runtime',
    mode: 'shadow',
    trigger: { type: 'on_demand' },
    budget: { maxUsdPerRun: 1 },
  };

  // 170,000 `1`s: 340,000 bytes of JSON, within the 350,000-byte bound, but over DynamoDB's 400 KB item limit as
  // stored (a byte per element besides each number's own). The write was refused: a 500, 'Item size has exceeded
  // the maximum allowed size' (DynamoDB Local and AWS alike).
  it('whose stored size passes what one item can hold is a 400 naming the field; nothing is written', async () => {
    const payload = { xs: Array.from({ length: 170_000 }, () => 1) };
    expect(JSON.stringify({ ...external, payload }).length).toBeLessThan(350_000);
    const reply = await h.alice.post('/v1/workflows', { ...external, payload });
    expect(reply.status).toBe(400);
    expect(reply.body.error.fields).toEqual([
      { path: 'payload', message: expect.stringContaining('bytes as DynamoDB counts them') },
    ]);
    const listed = await h.alice.get('/v1/workflows');
    expect(listed.body.items.map((head: { name: string }) => head.name)).not.toContain(external.name);
  });
});

describe('a grant', () => {
  const h = apiHarness();
  const lookup = (properties: Record<string, unknown>) => ({
    kind: 'http',
    description: 'Looks a ticket up.',
    method: 'GET',
    url: 'https://tickets.example.com/{ticket}',
    input: { type: 'object', properties: { ticket: { type: 'string' }, ...properties }, required: [] },
  });
  const newClientId = () => `ctor-${Math.random().toString(36).slice(2, 10)}`;

  it('over what one item can hold is a 400 naming the grant, on create and on widen; nothing is written', async () => {
    // 100,000 characters of four UTF-8 bytes each: within the schema's length, past the 350,000-byte bound.
    const overrides = { system: '😀'.repeat(100_000) };
    const clientId = newClientId();
    const created = await h.alice.post('/v1/grants', { clientId, grant: baseGrant(overrides) });
    expect(created.status).toBe(400);
    expect(created.body.error.fields[0]).toMatchObject({
      path: 'grant',
      message: expect.stringContaining('too large to store'),
    });
    expect((await h.alice.get(`/v1/grants/${clientId}`)).status).toBe(404);

    expect((await h.alice.post('/v1/grants', { clientId, grant: baseGrant() })).status).toBe(201);
    const widened = await h.alice.post(`/v1/grants/${clientId}/widen`, { grant: baseGrant(overrides) });
    expect(widened.status).toBe(400);
    expect((await h.alice.get(`/v1/grants/${clientId}`)).body.grant.version).toBe(1);
  });

  it('whose stored size passes what one item can hold is a 400 naming the grant field', async () => {
    const many = { type: 'number', enum: Array.from({ length: 170_000 }, () => 1) };
    const overrides = { actions: ['lookup'], connectors: { lookup: lookup({ many }) } };
    const clientId = newClientId();
    const created = await h.alice.post('/v1/grants', { clientId, grant: baseGrant(overrides as never) });
    expect(created.status).toBe(400);
    expect(created.body.error.fields[0]).toMatchObject({
      path: 'grant.connectors',
      message: expect.stringContaining('bytes as DynamoDB counts them'),
    });
    expect((await h.alice.get(`/v1/grants/${clientId}`)).status).toBe(404);
  });

  it('with a field named constructor is stored as given (shared/store/own-constructor-keys.ts)', async () => {
    const overrides = {
      actions: ['lookup'],
      connectors: { lookup: lookup({ constructor: { type: 'string' } }) },
    };
    const clientId = newClientId();
    expect(
      (await h.alice.post('/v1/grants', { clientId, grant: baseGrant(overrides as never) })).status,
    ).toBe(201);
    const read = await h.alice.get(`/v1/grants/${clientId}`);
    expect(read.body.grant.grant.connectors.lookup.input.properties.constructor).toEqual({ type: 'string' });
  });
});
