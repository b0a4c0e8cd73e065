/**
 * Tenancy, derived from the code: every route the local stack's HTTP server matches (the API, the local
 * extras, the console, the approval and human-task pages) and every tool of the jobs MCP server is probed with
 * owner A's ids as owner B (B's client, a second client of A's, B in the console, nobody), against a missing
 * id of the same shape: the two answers are the same, status, headers and body (the id a reply echoes
 * swapped), and nothing of A's changes (every item of A's in the table, byte for byte). A probe without an id
 * must show none of A's ids. Ids in query strings, headers (Idempotency-Key, If-Match) and JSON bodies are
 * derived from the served OpenAPI document (tenancy-fields.ts), and the query parameters the console and pages
 * read by name from a scan of the serving code (tenancy-query.ts), as are the form fields the pages and the
 * console read from a posted body (tenancy-form.ts), and probed the same way. B's probes are sent
 * again by a client of A's own, which owner routes refuse. The route and tool lists come from the stack and the
 * MCP server themselves: one without a fixture in tenancy-fixtures.ts fails the check, with the row to add.
 * The stack and A's and B's objects: tenancy-world.ts; one route's probe: tenancy-route-probe.ts.
 */
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import type { Hono } from 'hono';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createApiFunctionApp } from '../../shared/api/api-function-app.ts';
import type { ApiDeps } from '../../shared/api/deps.ts';
import { createMcpApp, type McpAppDeps } from '../../shared/api/mcp-app.ts';
import { createWorkflowWriteApp } from '../../shared/api/workflow-write-app.ts';
import type { ApprovalAppDeps } from '../../shared/approvals-http/deps.ts';
import type { HumanTaskDeps } from '../../shared/human-tasks/deps.ts';
import { signedPagesApp } from '../../shared/human-tasks/signed-pages.ts';
import { bearer, callTool, connectMcp } from '../mcp/support.ts';
import { itemsOfA } from './tenancy-compare.ts';
import { probesField, withField } from './tenancy-field-probes.ts';
import {
  approvalHintFields,
  type IdField,
  idFields,
  requestIdFields,
  requestQueryParameters,
} from './tenancy-fields.ts';
import { FIELD_EXEMPTIONS, FORM_EXEMPTIONS, QUERY_EXEMPTIONS, ROUTES, TOOLS } from './tenancy-fixtures.ts';
import { FORM_HANDED_ON, formReads } from './tenancy-form.ts';
import { headersReadByRoutes, headersReadDirectly, READ_DIRECTLY } from './tenancy-headers.ts';
import { foreign, leakable, missingOf } from './tenancy-ids.ts';
import { REF } from './tenancy-probe.ts';
import { CLIENTS } from './tenancy-probe-builders.ts';
import { answers, QUERY_HANDED_ON, queryReads } from './tenancy-query.ts';
import { keyOf, namesIds } from './tenancy-request.ts';
import { probeRoute } from './tenancy-route-probe.ts';
import { asA, e2e } from './tenancy-stack.ts';
import { startTenancyWorld, stopTenancyWorld } from './tenancy-world.ts';

beforeAll(startTenancyWorld, 120_000);
afterAll(stopTenancyWorld);

describe('Tenancy of every route of the local stack (the API, the pages, the console)', () => {
  it('holds a fixture for every route the stack serves, and none for a route it no longer has', () => {
    const served = e2e.stack.routes;
    const uncovered = served.filter((route) => !(route in ROUTES));
    const stale = Object.keys(ROUTES).filter((route) => !served.includes(route));
    expect(
      uncovered,
      `routes without a tenancy fixture: add a row for each to ROUTES in test/e2e/tenancy-fixtures.ts, in the file of its surface (the API's rows: tenancy-api-routes.ts; the pages' and the console's: tenancy-page-routes.ts), naming its id parameters and which of A's objects they name, or why it is exempt`,
    ).toEqual([]);
    expect(
      stale,
      'rows of ROUTES (test/e2e/tenancy-fixtures.ts, from tenancy-api-routes.ts and tenancy-page-routes.ts) for routes the stack no longer serves',
    ).toEqual([]);
    expect(served.length).toBeGreaterThan(40);
  });

  it('probes every route the AWS functions serve: each is a route of the stack', () => {
    // Building the apps reads no port (test/api/route-split.test.ts); the pages check their public URL only.
    const deps = {
      authenticator: { authenticate: () => undefined },
      mcp: async () => new Response(null, { status: 204 }),
      publicBaseUrl: 'https://pages.example.com',
    };
    const functions: Record<string, Hono> = {
      api: createApiFunctionApp(deps as unknown as ApiDeps) as unknown as Hono,
      'workflow-write': createWorkflowWriteApp(deps as unknown as ApiDeps) as unknown as Hono,
      mcp: createMcpApp(deps as unknown as McpAppDeps) as unknown as Hono,
      'approval-http': signedPagesApp(deps as unknown as ApprovalAppDeps, deps as unknown as HumanTaskDeps),
    };
    const elsewhere = Object.entries(functions).flatMap(([name, app]) =>
      app.routes
        .filter((route) => route.method !== 'ALL')
        .map((route) => `${route.method} ${route.path}`)
        .filter((route) => !e2e.stack.routes.includes(route))
        .map((route) => `${name}: ${route}`),
    );
    expect(
      elsewhere,
      'routes served on AWS that the local stack does not serve (and so this check does not probe)',
    ).toEqual([]);
  });

  it("probes each route with a path parameter with at least one of A's ids", () => {
    const idless = Object.entries(ROUTES)
      .filter(([route, fixture]) => route.includes('/:') && 'probes' in fixture)
      .filter(([, fixture]) => 'probes' in fixture && !fixture.probes.some(namesIds))
      .map(([route]) => route);
    expect(idless, "rows of ROUTES whose probes name none of A's ids for the route's parameters").toEqual([]);
  });

  it("names A's ids in every query, header and JSON body field that is an id (or says why it need not)", async () => {
    // The API's request schemas, as the stack serves them: the ones its routes validate with.
    const document = await (await fetch(`${e2e.stack.url}/v1/openapi.json`)).json();
    const fields = [...requestIdFields(document), ...approvalHintFields()];
    const exempt = ({ route, field }: IdField) =>
      FIELD_EXEMPTIONS[field] !== undefined || FIELD_EXEMPTIONS[`${route} ${field}`] !== undefined;
    const unprobed = fields
      .filter((f) => !probesField(f) && !exempt(f))
      .map(({ route, field }) => `${route} ${field}`);
    expect(
      unprobed,
      "id fields of requests that no probe names one of A's ids in: add a probe to the route's row in ROUTES (test/e2e/tenancy-fixtures.ts; `ref(kind)` in a JSON body, A's key or version in `headers`), or an entry with its reason to FIELD_EXEMPTIONS",
    ).toEqual([]);
    const stale = Object.keys(FIELD_EXEMPTIONS).filter(
      (key) => !fields.some(({ route, field }) => key === field || key === `${route} ${field}`),
    );
    expect(stale, 'FIELD_EXEMPTIONS entries for fields no request has').toEqual([]);
    expect(fields.length).toBeGreaterThan(40);
    // The header fields come from the document: each header a route reads (through validateHeader, body.ts) is
    // a header parameter of its operation there, so a route honouring one undeclared fails here, not silently.
    const read = headersReadByRoutes();
    const declared = fields.filter((f) => f.field.startsWith('header.')).map((f) => f.field.slice(7));
    expect(
      declared.sort(),
      'headers the routes read (shared/) against those the OpenAPI document declares',
    ).toEqual(read);
    expect(read).toContain('Idempotency-Key');
    // Any other header a served route reads directly is one of these, reviewed: none names an object of an
    // owner's, so none needs a probe. A new one fails here until it is read through validateHeader (and so
    // declared and probed above) or added with its reason.
    expect(headersReadDirectly(), 'headers read without validateHeader (add the reason here)').toEqual(
      Object.keys(READ_DIRECTLY).sort(),
    );
  });

  it("names A's values in every query parameter the console and the pages read by name (or says why it need not)", async () => {
    const document = await (await fetch(`${e2e.stack.url}/v1/openapi.json`)).json();
    const { named, handedOn } = queryReads();
    expect(
      handedOn,
      'query reads whose parameter the scan cannot name (a variable name, the whole query handed on): name it by literal, or review the site in QUERY_HANDED_ON (test/e2e/tenancy-query.ts)',
    ).toEqual(Object.keys(QUERY_HANDED_ON).sort());
    const read = new Set(named.map(({ name }) => name));
    expect([...read]).toContain('after');
    const probes = Object.entries(ROUTES).flatMap(([route, fixture]) =>
      'probes' in fixture ? fixture.probes.map((probe) => ({ route, query: probe.query ?? {} })) : [],
    );
    // A read is bound when a probe of a route its file answers (the console's, a page's) sends one of A's values
    // (an id kind: not a literal, not B's own) in that parameter.
    const bound = ({ name, file }: { name: string; file: string }) =>
      probes.some(({ route, query }) => answers(file, route) && typeof query[name] === 'string');
    const unprobed = named
      .filter((r) => !bound(r) && QUERY_EXEMPTIONS[r.name] === undefined)
      .map(({ name, file }) => `${name} (read in ${file})`);
    expect(
      [...new Set(unprobed)],
      "query parameters read by name outside the OpenAPI document that no probe sends one of A's values in: add a probe to the ROUTES row of the route that reads it (test/e2e/tenancy-fixtures.ts, `query: { <name>: <kind of A's> }`), or an entry with its reason to QUERY_EXEMPTIONS",
    ).toEqual([]);
    expect(
      Object.keys(QUERY_EXEMPTIONS).filter((name) => !read.has(name)),
      'QUERY_EXEMPTIONS entries for query parameters the serving code no longer reads',
    ).toEqual([]);
    // Every query parameter a probe sends is one its route declares in the OpenAPI document, or one the code
    // answering it reads.
    const declared = new Set(requestQueryParameters(document).map(({ route, name }) => `${route} ${name}`));
    const stale = probes.flatMap(({ route, query }) =>
      Object.keys(query)
        .filter((name) => !declared.has(`${route} ${name}`))
        .filter((name) => !named.some((r) => r.name === name && answers(r.file, route)))
        .map((name) => `${route} ?${name}`),
    );
    expect(stale, 'probes sending a query parameter their route no longer reads').toEqual([]);
  });

  it("names A's values in every form field the pages and the console read by name (or says why it need not)", () => {
    const { named, handedOn } = formReads();
    expect(
      handedOn,
      'body reads whose form fields the scan cannot name (a variable name, the form or the raw request handed on, a JSON or multipart body): name each field by literal, or review the site in FORM_HANDED_ON (test/e2e/tenancy-form.ts)',
    ).toEqual(Object.keys(FORM_HANDED_ON).sort());
    const read = new Set(named.map(({ name }) => name));
    expect([...read]).toEqual(expect.arrayContaining(['t', 'nonce', 'key']));
    const probes = Object.entries(ROUTES).flatMap(([route, fixture]) =>
      'probes' in fixture ? fixture.probes.map((probe) => ({ route, form: probe.form ?? {} })) : [],
    );
    // A read is bound when a probe of a route its file answers (a page's, the console's, the inbox's) sends one
    // of A's values in that field (`ref(kind)`: not a literal, not B's own).
    const bound = ({ name, file }: { name: string; file: string }) =>
      probes.some(({ route, form }) => {
        const value = form[name];
        return answers(file, route) && typeof value === 'object' && REF in value;
      });
    const unprobed = named
      .filter((r) => !bound(r) && FORM_EXEMPTIONS[r.name] === undefined)
      .map(({ name, file }) => `${name} (read in ${file})`);
    expect(
      [...new Set(unprobed)],
      "form fields read by name that no probe sends one of A's values in: add a probe to the ROUTES row of the route that reads it (test/e2e/tenancy-fixtures.ts, `form: { <name>: ref(<kind of A's>) }`), or an entry with its reason to FORM_EXEMPTIONS",
    ).toEqual([]);
    expect(
      Object.keys(FORM_EXEMPTIONS).filter((name) => !read.has(name)),
      'FORM_EXEMPTIONS entries for form fields the serving code no longer reads',
    ).toEqual([]);
    // Every form field a probe sends is one the code answering its route reads, by name or through a reviewed
    // reader of the form's own fields (the human-task form's `f.<name>`).
    const readers = Object.entries(FORM_HANDED_ON).flatMap(([site, { reads }]) =>
      reads ? [{ file: site.split(':')[0] ?? '', reads }] : [],
    );
    const stale = probes.flatMap(({ route, form }) =>
      Object.keys(form)
        .filter((name) => !named.some((r) => r.name === name && answers(r.file, route)))
        .filter((name) => !readers.some((r) => r.reads.test(name) && answers(r.file, route)))
        .map((name) => `${route} form ${name}`),
    );
    expect(stale, 'probes sending a form field their route does not read').toEqual([]);
  });

  it.each(Object.entries(ROUTES))(
    "%s: A's id answers B as a missing id does, B sees none of A's ids, and nothing of A's changes",
    async (route, fixture) => {
      if ('exempt' in fixture) return;
      for (const probe of fixture.probes) {
        await probeRoute(route, probe);
        // A client of A's own on an owner's route: refused whatever the id (clients have /v1/jobs and /mcp only),
        // so it reads nothing of its owner's either.
        if (probe.as === 'ownerB') {
          // Refused before anything starts: nothing to wait for.
          const { field: _refused, settles: _none, ...asClient } = probe;
          await probeRoute(route, { ...asClient, as: 'siblingA', status: probe.clientStatus ?? 403 });
        }
      }
    },
  );

  it("left A's things as they were", async () => {
    const { run } = await asA('GET', `/v1/runs/${foreign.agentRun}`);
    expect(run.status).toBe('awaiting_approval');
    const graphRun = (await asA('GET', `/v1/runs/${foreign.graphRun}`)).run;
    expect(graphRun.status).toBe('running');
    const { workflow } = await asA('GET', `/v1/workflows/${foreign.agentWorkflow}`);
    expect(workflow).toMatchObject({ enabled: true, draftVersion: 2 });
    const { grant } = await asA('GET', `/v1/grants/${CLIENTS.a}`);
    expect(grant).toMatchObject({ version: 1, revoked: false });
  });
});

describe('Tenancy of every tool of the jobs MCP server', () => {
  const clients: Partial<Record<'clientB' | 'siblingA', Client>> = {};
  const mcp = (caller: 'clientB' | 'siblingA') => {
    const client = clients[caller];
    if (!client) throw new Error(`no MCP client for ${caller}`);
    return client;
  };
  beforeAll(async () => {
    for (const caller of ['clientB', 'siblingA'] as const)
      clients[caller] = await connectMcp(`${e2e.stack.url}/mcp`, bearer(keyOf[caller] ?? ''));
  });
  afterAll(async () => {
    for (const client of Object.values(clients)) await client?.close();
  });

  it('holds a fixture for every tool the server lists', async () => {
    const { tools } = await mcp('clientB').listTools();
    const listed = tools.map((tool) => tool.name);
    expect(
      listed.filter((name) => !(name in TOOLS)),
      'tools without a tenancy fixture: add a row for each to TOOLS in test/e2e/tenancy-fixtures.ts',
    ).toEqual([]);
    expect(Object.keys(TOOLS).filter((name) => !listed.includes(name))).toEqual([]);
    // An argument that is an id (`jobId`, `nextToken`, one nested or in an array: tenancy-fields.ts) is probed
    // with A's: a probe of its row says which of A's objects.
    const unprobed = tools.flatMap((tool) =>
      idFields(tool.inputSchema)
        .filter((arg) => !(TOOLS[tool.name] ?? []).some((probe) => probe.ids?.[arg] !== undefined))
        .map((arg) => `${tool.name}.${arg}`),
    );
    expect(unprobed, 'id arguments without a probe naming them in their TOOLS row (ids)').toEqual([]);
    // Tools are all the server offers: a resource or a prompt would need probes of its own here.
    expect(Object.keys(mcp('clientB').getServerCapabilities() ?? {})).toEqual(['tools']);
  });

  const toolProbes = Object.entries(TOOLS).flatMap(([name, probes]) =>
    probes.map((probe, index) => [name, index, probe] as const),
  );
  describe.each(['clientB', 'siblingA'] as const)('as %s', (caller) => {
    it.each(toolProbes)(
      "%s (probe %i): A's id answers as a missing id does, no answer shows A's ids, nothing of A's changes",
      async (name, _index, fixture) => {
        const before = await itemsOfA();
        const args = (ids: 'foreign' | 'missing') => {
          let built: unknown = structuredClone(fixture.args ?? {});
          for (const [arg, kind] of Object.entries(fixture.ids ?? {}))
            built = withField(built, arg, ids === 'foreign' ? foreign[kind] : missingOf(kind, caller));
          return built as Record<string, unknown>;
        };
        if (fixture.ids) {
          const foreignResult = await callTool(mcp(caller), name, args('foreign'));
          const missingResult = await callTool(mcp(caller), name, args('missing'));
          expect(missingResult.structuredContent?.error?.code).toBe(fixture.code ?? 'not_found');
          let text = JSON.stringify(foreignResult);
          for (const kind of Object.values(fixture.ids))
            text = text.replaceAll(foreign[kind], missingOf(kind, caller));
          expect(JSON.parse(text)).toEqual(missingResult);
        } else {
          const result = JSON.stringify(await callTool(mcp(caller), name, args('missing')));
          expect(leakable.filter((id) => result.includes(id))).toEqual([]);
        }
        expect(await itemsOfA()).toEqual(before);
      },
    );
  });
});
