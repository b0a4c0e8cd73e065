/**
 * A transcript larger than a Lambda response (6 MB: https://docs.aws.amazon.com/lambda/latest/dg/API_Invoke.html)
 * is read through GET /v1/runs/{id}/transcript a page at a time, each page's Lambda result under 6 MB as the
 * Lambda adapter (hono/aws-lambda) builds it, and the pages put back together are the stored transcript.
 */
import { beforeAll, describe, expect, it } from 'vitest';
import { readWholeTranscript, type TranscriptPageBody } from '../../shared/runs/transcript-reader.ts';
import type { TranscriptMessage } from '../../shared/schemas/message.ts';
import { messageItems } from '../../shared/store/message-items.ts';
import {
  expectPageQueriesRefused,
  jsonText,
  LAMBDA_RESPONSE_BYTES,
  lambdaGet as lambdaGetOf,
  putItems,
} from '../support/lambda-pages.ts';
import { apiHarness, definition, ownTableName } from './helpers.ts';

const h = apiHarness({ tableName: await ownTableName() });

async function startRun() {
  const { workflowId } = (await h.alice.post('/v1/workflows', definition())).body.workflow;
  return (await h.alice.post(`/v1/workflows/${workflowId}/runs`, { input: 'hello' })).body.run as {
    runId: string;
  };
}

/** Appends messages after the run's first, stored as the store stores them (message-items.ts). */
async function appendMessages(runId: string, contents: TranscriptMessage['content'][]) {
  const items = contents.flatMap((content, i) =>
    messageItems({
      schemaVersion: 1,
      runId,
      seq: i + 1,
      turn: Math.floor((i + 1) / 2),
      role: i % 2 === 0 ? 'assistant' : 'user',
      content,
      createdAt: '2026-12-02T00:00:00.000Z',
    }),
  );
  await putItems(h.store, items);
}

/** The API behind the Lambda adapter, as API Gateway invokes it: the result whose size Lambda limits. */
const lambdaGet = (path: string) => lambdaGetOf(h.app, h.keys.alice, path);

describe('GET /v1/runs/{id}/transcript over 6 MB', () => {
  let runId: string;
  let stored: TranscriptMessage[];
  beforeAll(async () => {
    runId = (await startRun()).runId;
    await appendMessages(runId, [
      // A 2.4 MB answer, 2.5 MB being the most one model answer may store.
      [{ type: 'text', text: jsonText(2_400_000) }],
      // 80 tool results of 45 KB (3.6 MB) in one message.
      Array.from({ length: 80 }, (_, i) => ({
        type: 'tool_result' as const,
        tool_use_id: `toolu_${i}`,
        content: jsonText(45_000),
      })),
      // Then 200 small messages.
      ...Array.from({ length: 200 }, () => [{ type: 'text' as const, text: jsonText(2_000) }]),
    ]);
    stored = await h.store.listMessages(runId);
  }, 120_000);

  it('has a transcript that would not fit one Lambda response', () => {
    expect(Buffer.byteLength(JSON.stringify(JSON.stringify({ runId, messages: stored })))).toBeGreaterThan(
      LAMBDA_RESPONSE_BYTES,
    );
  });

  it('answers the call without parameters with a first page that fits a Lambda response', async () => {
    const { result, bytes } = await lambdaGet(`/v1/runs/${runId}/transcript`);
    expect(result.statusCode).toBe(200);
    expect(bytes).toBeLessThan(LAMBDA_RESPONSE_BYTES);
    const page = JSON.parse(result.body) as TranscriptPageBody;
    expect(page.messages.map((m) => m.seq)).toEqual([0]);
    expect(page.nextToken).toEqual(expect.any(String));
  });

  it('gives every page within a Lambda response, and the pages joined are the stored transcript', async () => {
    const sizes: number[] = [];
    const pages: TranscriptPageBody[] = [];
    const messages = await readWholeTranscript(runId, async (path) => {
      const { result, bytes } = await lambdaGet(path);
      expect(result.statusCode).toBe(200);
      sizes.push(bytes);
      const page = JSON.parse(result.body) as TranscriptPageBody;
      pages.push(page);
      return page;
    });
    expect(messages).toEqual(stored);
    expect(Math.max(...sizes)).toBeLessThan(LAMBDA_RESPONSE_BYTES);
    // The two large messages came in parts; the small ones whole, many a page.
    const partSeqs = new Set(pages.flatMap((page) => (page.messagePart ? [page.messagePart.seq] : [])));
    expect([...partSeqs]).toEqual([1, 2]);
    expect(pages.at(-1)!.messages.length).toBeGreaterThan(1);
    console.log(
      `[transcript] ${stored.length} messages, ${pages.length} pages, largest Lambda result ${Math.max(...sizes)} bytes`,
    );
  });
});

describe('GET /v1/runs/{id}/transcript paging', () => {
  it('answers a small transcript whole, without nextToken, as before', async () => {
    const { runId } = await startRun();
    const reply = await h.alice.get(`/v1/runs/${runId}/transcript`);
    expect(reply.status).toBe(200);
    expect(Object.keys(reply.body).sort()).toEqual(['messages', 'runId']);
  });

  it('pages by `limit`, and ends without nextToken', async () => {
    const { runId } = await startRun();
    await appendMessages(
      runId,
      Array.from({ length: 4 }, (_, i) => [{ type: 'text' as const, text: `m${i + 1}` }]),
    );
    const seqs: number[][] = [];
    let token: string | undefined;
    do {
      const query = `limit=2${token ? `&nextToken=${encodeURIComponent(token)}` : ''}`;
      const reply = await h.alice.get(`/v1/runs/${runId}/transcript?${query}`);
      expect(reply.status).toBe(200);
      seqs.push(reply.body.messages.map((m: TranscriptMessage) => m.seq));
      token = reply.body.nextToken;
    } while (token);
    expect(seqs).toEqual([[0, 1], [2, 3], [4]]);
  });

  it("refuses another run's token, a forged one and a bad limit with 400 naming the field", async () => {
    const [a, b] = [await startRun(), await startRun()];
    await appendMessages(a.runId, [[{ type: 'text', text: 'one' }], [{ type: 'text', text: 'two' }]]);
    const token = (await h.alice.get(`/v1/runs/${a.runId}/transcript?limit=1`)).body.nextToken as string;
    const forged = Buffer.from(JSON.stringify({ pk: `RUN#${a.runId}`, sk: 'MSG#x' })).toString('base64url');
    await expectPageQueriesRefused(
      (path) => h.alice.get(path),
      [
        [`/v1/runs/${b.runId}/transcript?nextToken=${token}`, 'nextToken'],
        [`/v1/runs/${a.runId}/transcript?nextToken=${forged}`, 'nextToken'],
        [`/v1/runs/${a.runId}/transcript?limit=0`, 'limit'],
      ],
    );
  });

  it("answers another owner's run as missing", async () => {
    const { runId } = await startRun();
    expect((await h.bob.get(`/v1/runs/${runId}/transcript`)).status).toBe(404);
  });
});
