/**
 * Fuzzing the POST routes with bad bodies derived from their zod schemas: every answer is a 4xx with the
 * error shape, and nothing is written (the fuzz owner's items are counted before and after; no execution
 * starts, no trigger is synced).
 */
import fc from 'fast-check';
import { beforeAll, beforeEach, describe, expect, it, onTestFailed } from 'vitest';
import { parseDocument } from 'yaml';
import {
  exceedsDepth,
  LocalEventEnvelopeBodySchema,
  MAX_BODY_BYTES,
  MAX_BODY_DEPTH,
  PutEventsBodySchema,
  StartRunBodySchema,
  WorkflowDefinitionBodySchema,
} from '../../shared/api/index.ts';
import { ownerKey } from '../../shared/credentials/owner-key.ts';
import type * as z from '../../shared/zod.ts';
import { brokenText, mutatedBodies, serialize } from './fuzz-arbitraries.ts';
import { apiHarness, itemsOf, ownTableName } from './helpers.ts';

const h = apiHarness({ tableName: await ownTableName() });
let workflowId = '';

/** Credential references in the owner's own namespace (others are refused at save time). */
function credRefsOf(owner: string) {
  const prefix = `wf/${ownerKey(owner)}`;
  return { api: { secret: `${prefix}/tickets-api` }, slack: { secret: `${prefix}/slack-webhook` } };
}

const seedDefinition = {
  name: 'fuzz-seed',
  description: 'A seed for mutations',
  model: { id: 'claude-sonnet-5-5', thinking: 'low', maxTokens: 2048 },
  prompt: { system: 'You triage tickets.', knowledge: [{ title: 'Policy', text: 'Be kind.' }] },
  allowedActions: ['notes_put', 'lookup', 'notify'],
  connectors: {
    lookup: {
      kind: 'http',
      description: 'Look up a ticket',
      method: 'GET',
      url: 'https://api.example.com/tickets/{id}',
      input: { type: 'object', properties: { id: { type: 'string', maxLength: 20 } }, required: ['id'] },
      credential: { slot: 'api' },
    },
    notify: { kind: 'slack_webhook', credential: { slot: 'slack' } },
  },
  gates: {
    notify: { mode: 'needs_approval', approvers: ['lead@example.com'], timeoutSeconds: 600 },
    notes_put: 'allow',
  },
  approvals: { approvers: ['lead@example.com'], timeoutSeconds: 3600 },
  trigger: { type: 'event', pattern: { source: ['com.example.tickets'], detail: { priority: ['high'] } } },
  destination: { type: 'report', title: 'Triage' },
  budget: { maxUsdPerRun: 2, maxUsdPerDay: 20, maxTurns: 10, maxToolCallsPerTurn: 4, runTimeoutSeconds: 600 },
  credRefs: credRefsOf(h.owners.alice),
};
const seedRun = { input: { ticket: 42, tags: ['a', 'b'], nested: { ok: true } } };
const seedPutEvents = {
  Entries: [
    {
      Source: 'com.example.fuzz',
      DetailType: 'Fuzzed',
      Detail: '{"a":1,"b":[1,2]}',
      Resources: ['arn:aws:s3:::bucket'],
      Time: '2026-01-01T00:00:00Z',
    },
  ],
};
const seedEvent = {
  id: 'evt-1',
  source: 'com.example.fuzz',
  'detail-type': 'Fuzzed',
  detail: { a: 1, nested: { b: [1, 2] } },
  time: '2026-01-01T00:00:00Z',
  resources: [],
};

type Format = 'json' | 'yaml';
type Route = {
  name: string;
  path: () => string;
  schema: z.ZodMiniType;
  seed: unknown;
  formats: Format[];
  optional?: boolean;
};
const eventsSchema = (value: unknown) =>
  value !== null && typeof value === 'object' && 'Entries' in value
    ? PutEventsBodySchema
    : LocalEventEnvelopeBodySchema;

const routes: Route[] = [
  {
    name: 'POST /v1/workflows',
    path: () => '/v1/workflows',
    schema: WorkflowDefinitionBodySchema,
    seed: seedDefinition,
    formats: ['json', 'yaml'],
  },
  {
    name: 'POST /v1/workflows/:id/versions',
    path: () => `/v1/workflows/${workflowId}/versions`,
    schema: WorkflowDefinitionBodySchema,
    seed: { ...seedDefinition, name: 'fuzz-target' },
    formats: ['json', 'yaml'],
  },
  {
    name: 'POST /v1/workflows/:id/runs',
    path: () => `/v1/workflows/${workflowId}/runs`,
    schema: StartRunBodySchema,
    seed: seedRun,
    formats: ['json'],
    optional: true,
  },
  {
    name: 'POST /local/events (PutEvents)',
    path: () => '/local/events',
    schema: PutEventsBodySchema,
    seed: seedPutEvents,
    formats: ['json'],
  },
  {
    name: 'POST /local/events (event)',
    path: () => '/local/events',
    schema: LocalEventEnvelopeBodySchema,
    seed: seedEvent,
    formats: ['json'],
  },
];

/**
 * `FUZZ_SEED` replays a failure; `FUZZ_SCALE` multiplies the runs. The seed is chosen here rather than by
 * fast-check so that every failure prints it, a test timeout included (fast-check only reports the seed of a
 * property that fails, not of one still running when the test is stopped).
 */
const seed = {
  seed: process.env.FUZZ_SEED ? Number(process.env.FUZZ_SEED) : Date.now() ^ (Math.random() * 2 ** 31),
};
const scale = Number(process.env.FUZZ_SCALE ?? 1);
/**
 * A hang guard, not a speed check: each property's work is bounded (CPU for the parsers and schemas, a few
 * store calls per body), but its wall time follows the machine's load. On the shared 2-core machine at load
 * ~27, 'POST /v1/workflows' bad bodies took 13 s alone and ~22 s per 250 bodies in a combined run (66 s at
 * FUZZ_SCALE=3): the old 60 s left too little room, and a timeout failed the suite without a finding.
 */
const timeout = 180_000 * scale;
beforeEach(() => {
  onTestFailed(() => {
    console.error(`fuzz: replay with FUZZ_SEED=${seed.seed} FUZZ_SCALE=${scale}`);
  });
});

/** What the server answered, for a failure message: status, error code and message, Retry-After. */
function answer(reply: {
  status: number;
  headers: Headers;
  body?: { error?: { code?: string; message?: string } };
}) {
  const retry = reply.headers.get('retry-after');
  return `${reply.status} ${reply.body?.error?.code ?? ''} ${reply.body?.error?.message ?? ''}${retry ? ` (Retry-After ${retry})` : ''}`;
}

/**
 * A store that is busy or briefly unreachable after the SDK's retries answers 503 with Retry-After, as in
 * production (shared/api/errors.ts): allowed where a request writes, never any other 5xx.
 */
const storeBusy = (reply: { status: number; headers: Headers; body?: { error?: { code?: string } } }) =>
  reply.status === 503 &&
  ['throttled', 'unavailable'].includes(reply.body?.error?.code ?? '') &&
  reply.headers.get('retry-after') !== null;
const CONTENT_TYPES: Record<Format, string> = { json: 'application/json', yaml: 'application/yaml' };

/** Would the server accept this body? The same parsing, nesting guard and schemas it uses. */
function accepted(route: Route, text: string, format: Format): boolean {
  if (Buffer.byteLength(text, 'utf8') > MAX_BODY_BYTES) return false;
  let value: unknown;
  if (text.trim() === '') {
    if (!route.optional) return false;
    value = {};
  } else if (format === 'json') {
    try {
      value = JSON.parse(text);
    } catch {
      return false;
    }
  } else {
    const document = parseDocument(text, { uniqueKeys: true });
    if (document.errors.length > 0) return false;
    try {
      value = document.toJS({ maxAliasCount: 100 });
    } catch {
      return false;
    }
  }
  if (exceedsDepth(value, MAX_BODY_DEPTH)) return false;
  const schema = route.path() === '/local/events' ? eventsSchema(value) : route.schema;
  return schema.safeParse(value).success;
}

type BadRequest = { text: string; format: Format; headers?: Record<string, string> };
const tally = { sent: 0, byRoute: {} as Record<string, number>, statuses: {} as Record<number, number> };

async function sendBad(route: Route, request: BadRequest) {
  const reply = await h.alice.call('POST', route.path(), request.text, {
    headers: { 'content-type': CONTENT_TYPES[request.format], ...request.headers },
  });
  tally.sent += 1;
  tally.byRoute[route.name] = (tally.byRoute[route.name] ?? 0) + 1;
  tally.statuses[reply.status] = (tally.statuses[reply.status] ?? 0) + 1;
  // A failed expectation here names the route, the answer and the body that broke it.
  const what = `POST ${route.path()} (${request.format}) answered ${answer(reply)} to: ${request.text.slice(0, 300)}`;
  expect({ status: reply.status, code: typeof reply.body?.error?.code }, what).toEqual({
    status: expect.toSatisfy((status: number) => status >= 400 && status < 500),
    code: 'string',
  });
}

let itemsBefore = 0;

beforeAll(async () => {
  const created = await h.alice.post('/v1/workflows', {
    name: 'fuzz-target',
    model: { id: 'claude-sonnet-5-5' },
    prompt: { system: 'You are fuzzed.' },
    allowedActions: [],
    trigger: { type: 'on_demand' },
    budget: { maxUsdPerRun: 1 },
  });
  expect(created.status).toBe(201);
  workflowId = created.body.workflow.workflowId;
  itemsBefore = await itemsOf(h.store, h.owners.alice);
});

describe('Fuzzing the POST routes with bad bodies', () => {
  it('starts from seeds the schemas accept', () => {
    for (const route of routes) expect(route.schema.safeParse(route.seed).success, route.name).toBe(true);
  });

  it.each(routes)('$name: every mutated bad body is a 4xx', { timeout }, async (route) => {
    const bad = fc
      .tuple(mutatedBodies(route.schema, route.seed), fc.constantFrom(...route.formats))
      .map(([value, format]): BadRequest => ({ text: serialize(value, format), format }))
      .filter((request) => !accepted(route, request.text, request.format));
    await fc.assert(
      fc.asyncProperty(bad, (request) => sendBad(route, request)),
      { numRuns: 250 * scale, ...seed },
    );
  });

  it.each(routes)('$name: broken JSON and YAML text is a 4xx', { timeout }, async (route) => {
    const bad = fc
      .tuple(brokenText, fc.constantFrom<Format>('json', 'yaml'))
      .map(
        ([text, format]): BadRequest => ({ text, format: route.formats.includes(format) ? format : 'json' }),
      )
      .filter((request) => !accepted(route, request.text, request.format));
    await fc.assert(
      fc.asyncProperty(bad, (request) => sendBad(route, request)),
      { numRuns: 40 * scale, ...seed },
    );
  });

  it('POST /v1/workflows/:id/runs: a bad Idempotency-Key with a good body is a 4xx', async () => {
    const route = routes[2]!;
    const key = fc
      .string({
        unit: fc.integer({ min: 0x20, max: 0x7e }).map((code) => String.fromCharCode(code)),
        maxLength: 300,
      })
      .map((value) => new Headers({ k: value }).get('k') ?? '')
      .filter((value) => !/^[\x21-\x7E]{1,255}$/.test(value));
    await fc.assert(
      fc.asyncProperty(key, (value) =>
        sendBad(route, {
          text: JSON.stringify(seedRun),
          format: 'json',
          headers: { 'idempotency-key': value },
        }),
      ),
      { numRuns: 60 * scale, ...seed },
    );
  });

  it('sent at least 1,000 bad bodies and wrote nothing: same items, no execution, no trigger sync', async () => {
    console.log(`fuzz: ${tally.sent} bad requests`, tally.byRoute, 'statuses', tally.statuses);
    expect(tally.sent).toBeGreaterThanOrEqual(1000);
    expect(Object.keys(tally.statuses).every((status) => Number(status) >= 400 && Number(status) < 500)).toBe(
      true,
    );
    expect(await itemsOf(h.store, h.owners.alice)).toBe(itemsBefore);
    expect(h.executions.starts).toEqual([]);
    expect(h.sync.requests).toHaveLength(1); // the fuzz target's own creation
  });
});

describe('Fuzzing with good and bad bodies alike', () => {
  const other = apiHarness();
  const otherSeed = { ...seedDefinition, credRefs: credRefsOf(other.owners.alice) };
  let target = '';
  beforeAll(async () => {
    const created = await other.alice.post('/v1/workflows', {
      ...otherSeed,
      name: 'fuzz-any',
      trigger: { type: 'on_demand' },
    });
    target = created.body.workflow.workflowId;
  });

  it.each([
    ['POST /v1/workflows', () => '/v1/workflows', WorkflowDefinitionBodySchema, otherSeed, 'yaml' as Format],
    [
      'POST /v1/workflows/:id/runs',
      () => `/v1/workflows/${target}/runs`,
      StartRunBodySchema,
      seedRun,
      'json' as Format,
    ],
  ])(
    '%s: every body, stored or refused, is answered below 500',
    { timeout },
    async (_name, path, schema, seedBody, format) => {
      const statuses = new Set<number>();
      const any = fc.tuple(mutatedBodies(schema, seedBody), fc.constantFrom<Format>('json', format));
      await fc.assert(
        fc.asyncProperty(any, async ([value, as]) => {
          const reply = await other.alice.call('POST', path(), serialize(value, as), {
            headers: { 'content-type': CONTENT_TYPES[as] },
          });
          statuses.add(reply.status);
          if (storeBusy(reply)) {
            // Visible in the output: a run of these is DynamoDB Local starved, worth knowing about.
            console.warn(`fuzz: POST ${path()} answered ${answer(reply)} (store busy, allowed)`);
            return;
          }
          const what = `POST ${path()} (${as}) answered ${answer(reply)} to: ${serialize(value, as).slice(0, 300)}`;
          expect(reply.status, what).toBeLessThan(500);
        }),
        { numRuns: 150 * scale, ...seed },
      );
      expect(
        [...statuses].some((status) => status < 300),
        `statuses: ${[...statuses].join(', ')}`,
      ).toBe(true);
    },
  );
});

describe('Fuzzing query strings and path ids', () => {
  const segment = fc
    .string({ unit: 'binary', maxLength: 60 })
    .map((text) => encodeURIComponent(text.replaceAll(/\p{Cs}/gu, '\uFFFD')));
  const rawQuery = fc.oneof(
    fc.string({ maxLength: 80 }),
    fc
      .array(fc.tuple(fc.constantFrom('limit', 'nextToken', 'status', 'workflowId', 'x'), segment), {
        maxLength: 4,
      })
      .map((pairs) => pairs.map(([name, value]) => `${name}=${value}`).join('&')),
  );

  it('answers any query on the listings below 500, and any id on the :id routes with 4xx', {
    timeout,
  }, async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.constantFrom('/v1/workflows', '/v1/runs', '/v1/approvals'),
        rawQuery,
        async (path, query) => {
          const reply = await h.alice.get(`${path}?${query.replaceAll('#', '%23')}`);
          expect(reply.status, `GET ${path}?${query} answered ${answer(reply)}`).toBeLessThan(500);
        },
      ),
      { numRuns: 200 * scale, ...seed },
    );
    await fc.assert(
      fc.asyncProperty(
        fc.constantFrom('/v1/workflows/', '/v1/runs/', '/v1/runs/{}/audit', '/v1/workflows/{}/versions/1'),
        segment.filter((id) => id !== '' && id !== '.' && id !== '..'),
        async (template, id) => {
          const path = template.includes('{}') ? template.replace('{}', id) : `${template}${id}`;
          const reply = await h.alice.get(path);
          expect(reply.status, path).toBeGreaterThanOrEqual(400);
          expect(reply.status, path).toBeLessThan(500);
        },
      ),
      { numRuns: 200 * scale, ...seed },
    );
  });
});
