/** Every example in docs/actions.md is checked here: workflow files, action inputs, schemas, outputs, code. */

import { readFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MAX_WEBHOOK_BODY_CHARS } from '../../shared/actions/connectors/signed-webhook.ts';
import { htmlToText } from '../../shared/actions/http/html-text.ts';
import {
  HttpRequestInput,
  MAX_REQUEST_BODY_CHARS,
  MAX_REQUEST_HEADERS,
} from '../../shared/actions/http/http-request.ts';
import { MAX_URL_CHARS } from '../../shared/actions/http/url.ts';
import { connectorActions } from '../../shared/actions/index.ts';
import { toolSpecOf } from '../../shared/core/actions.ts';
import type { EgressRequest } from '../../shared/core/ports.ts';
import { actionCatalogFor } from '../../shared/runtime/engine-deps.ts';
import { asAgentDefinition } from '../../shared/schemas/any-workflow.ts';
import { LEDGER_STATUSES } from '../../shared/schemas/ledger.ts';
import type { WorkflowDefinition } from '../../shared/schemas/workflow.ts';
import { parseWorkflowText } from '../../shared/workflow-file/index.ts';
import { tableRows } from '../docs/fenced-blocks.ts';
import { FixedClock, testStore } from '../support/store.ts';
import { actionContext, type FakeRemote, fakeRemote, runParsed, secretsFile } from './support.ts';
import { verifySignedWebhook } from './webhook-receiver-example.ts';

const doc = readFileSync(new URL('../../docs/actions.md', import.meta.url), 'utf8');
const blocks = [...doc.matchAll(/^```([^\n]*)\n([\s\S]*?)^```$/gm)].map((match) => ({
  info: match[1]!.trim().split(/\s+/),
  text: match[2]!,
}));
const blocksOf = (language: string, tag?: string) =>
  blocks.filter((block) => block.info[0] === language && (tag === undefined || block.info[1] === tag));

const catalog = actionCatalogFor(testStore());
const yamlBlocks = blocksOf('yaml');
const parsedWorkflow = parseWorkflowText(yamlBlocks[0]?.text ?? '');
const definition = (parsedWorkflow.ok ? parsedWorkflow.definition : undefined) as WorkflowDefinition;

describe('docs/actions.md', () => {
  it('has the examples this test checks', () => {
    expect(yamlBlocks.length).toBeGreaterThanOrEqual(1);
    expect(blocksOf('json').length).toBeGreaterThanOrEqual(6);
    expect(blocksOf('ts')).toHaveLength(1);
  });

  it.each(yamlBlocks.map((block, index) => [index, block.text]))(
    'parses workflow file example %i, and every action it allows exists',
    (_i, text) => {
      const parsed = parseWorkflowText(text);
      expect(parsed).toMatchObject({ ok: true });
      if (!parsed.ok) return;
      const definition = asAgentDefinition(parsed.definition);
      for (const name of definition.allowedActions) {
        const action = catalog.resolve(name, definition);
        expect(action?.name).toBe(name);
        expect(toolSpecOf(action!).inputSchema).toMatchObject({ type: 'object' });
      }
    },
  );

  it.each(
    blocksOf('json')
      .filter((block) => block.info.length === 2)
      .map((block) => [block.info[1]!, block.text]),
  )('gives a valid %s input', (name, text) => {
    const action = catalog.resolve(name, definition);
    expect(action, `no action ${name}`).toBeDefined();
    const parsed = action!.input.safeParse(JSON.parse(text));
    expect(parsed.error?.issues ?? []).toEqual([]);
  });

  it.each(blocksOf('json', 'tool-schema').map((block) => [block.info[2]!, block.text]))(
    'shows the exact input schema of %s',
    (name, text) => {
      expect(toolSpecOf(catalog.resolve(name, definition)!).inputSchema).toEqual(JSON.parse(text));
    },
  );

  it('describes the request a get_build call makes', async () => {
    const [, input, url] =
      /and `(\{[^`]*\})` becomes\n`GET (\S+)` with `Authorization: Bearer <ci token>`/.exec(doc) ?? [];
    expect(url).toBeDefined();
    const sent: EgressRequest[] = [];
    const ctx = {
      ...actionContext({
        ports: [],
        owner: 'team-a',
        secrets: secretsFile({ 'wf/team-a/release/ci-token': 'ci-token-for-the-docs-0001' }),
      }),
      egress: {
        request: async (request: EgressRequest) => {
          sent.push(request);
          return { status: 200, headers: {}, body: '{}', url: request.url };
        },
      },
    };
    await runParsed(catalog.resolve('get_build', definition)!, JSON.parse(input!), ctx);
    expect(sent).toHaveLength(1);
    expect(sent[0]).toMatchObject({ method: 'GET', url, allowedHosts: ['ci.example.com'] });
    expect(sent[0]?.credentialHeaders).toEqual([
      { origin: 'https://ci.example.com', name: 'Authorization', value: 'Bearer ci-token-for-the-docs-0001' },
    ]);
    expect(sent[0]?.headers?.['Idempotency-Key']).toBe(ctx.idempotencyKey);
  });

  it('quotes the input limits the action schemas hold, in characters', () => {
    const count = (n: number) => n.toLocaleString('en');
    const flat = doc.replace(/\s+/g, ' ');
    expect(flat).toContain(
      `Input limits: \`http_request\` body ${count(MAX_REQUEST_BODY_CHARS)} characters, ${MAX_REQUEST_HEADERS} headers; \`signed_webhook\` payload ${count(MAX_WEBHOOK_BODY_CHARS)} characters; URL ${count(MAX_URL_CHARS)} characters`,
    );
    expect(flat).toContain(`≤ ${count(MAX_REQUEST_BODY_CHARS)} characters once serialised`);
    expect(flat).toContain(`(≤ ${count(MAX_WEBHOOK_BODY_CHARS)} characters serialised)`);
    // Characters, not bytes: a body of three-byte characters is held to the same count.
    const body = (n: number) => ({ method: 'POST', url: 'https://api.example.com/', body: '€'.repeat(n) });
    expect(HttpRequestInput.safeParse(body(MAX_REQUEST_BODY_CHARS)).success).toBe(true);
    expect(HttpRequestInput.safeParse(body(MAX_REQUEST_BODY_CHARS + 1)).success).toBe(false);
  });

  it('lists the four outcome classes in one table, each on a settled ledger status', () => {
    const rows = tableRows('actions.md', '| class | ledger row | what the model reads | when |');
    expect(rows.map(([name]) => name)).toEqual(['completed', 'failed', 'refused', '**outcome unknown**']);
    const settled = LEDGER_STATUSES.filter((status) => status !== 'pending');
    for (const [, row] of rows) expect(settled).toContain(/`(\w+)`/.exec(row ?? '')?.[1]);
  });

  it('shows what fetch_url makes of the HTML example', () => {
    const [html] = blocksOf('html', 'reduce-example');
    const [text] = blocksOf('text', 'reduce-example');
    const page = htmlToText(html!.text, html!.info[2]);
    expect(page.text).toBe(text!.text.trimEnd());
    expect(doc).toContain(`(after the \`Title: ${page.title}\` line)`);
  });

  describe('the signed_webhook receiver example', () => {
    const KEY = 'docs-example-signing-key-01';
    const RECEIVED_AT = Math.floor(Date.parse('2026-11-30T07:00:30Z') / 1000);
    let receiver: FakeRemote;
    beforeAll(async () => {
      receiver = await fakeRemote((request) =>
        verifySignedWebhook(KEY, request.body, request.headers, RECEIVED_AT)
          ? { status: 204 }
          : { status: 401, body: 'rejected' },
      );
    });
    afterAll(() => receiver.close());

    it('is quoted verbatim in the docs', () => {
      const code = readFileSync(new URL('./webhook-receiver-example.ts', import.meta.url), 'utf8');
      expect(blocksOf('ts')[0]?.text).toBe(code);
    });

    it('accepts what the documented notify_deploys connector sends, and rejects a tampered copy', async () => {
      // Prepare: the documented connector, pointed at a local receiver
      const connector = { ...definition.connectors.notify_deploys!, url: `${receiver.origin}/hooks/release` };
      const action = connectorActions()('notify_deploys', connector, definition);
      const payload = JSON.parse(blocksOf('json', 'notify_deploys')[0]!.text);
      const ctx = actionContext({
        ports: [receiver.port],
        owner: 'team-a',
        secrets: secretsFile({ 'wf/team-a/release/deploy-signing-key': KEY }),
        clock: new FixedClock('2026-11-30T07:00:00.000Z'),
      });

      // Act
      const outcome = await runParsed(action, payload, ctx);

      // Assess
      expect(outcome).toEqual({ content: 'Webhook answered HTTP 204.', isError: false });
      const received = receiver.received.at(-1)!;
      expect(verifySignedWebhook(KEY, received.body, received.headers, RECEIVED_AT)).toBe(true);
      expect(
        verifySignedWebhook(KEY, received.body.replace('true', 'false'), received.headers, RECEIVED_AT),
      ).toBe(false);
      expect(verifySignedWebhook(KEY, received.body, received.headers, RECEIVED_AT + 330)).toBe(false);
    });
  });
});
