/**
 * A transcript larger than a Lambda response (6 MB: https://docs.aws.amazon.com/lambda/latest/dg/API_Invoke.html)
 * is read through GET /v1/runs/{id}/transcript a page at a time, each page's Lambda result under 6 MB as the
 * Lambda adapter (hono/aws-lambda) builds it, and the pages put back together are the stored transcript.
 */
import { QueryCommand } from '@aws-sdk/lib-dynamodb';
import { beforeAll, describe, expect, it } from 'vitest';
import type { ApiDeps } from '../../shared/api/deps.ts';
import { readTranscriptPage } from '../../shared/api/routes/transcript.ts';
import { readWholeTranscript, type TranscriptPageBody } from '../../shared/runs/transcript-reader.ts';
import type { TranscriptMessage } from '../../shared/schemas/message.ts';
import { DynamoStore } from '../../shared/store/index.ts';
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

/** Appends messages after the run's first (or after `after`), stored as the store stores them (message-items.ts). */
async function appendMessages(runId: string, contents: TranscriptMessage['content'][], after = 0) {
  const items = contents.flatMap((content, i) =>
    messageItems({
      schemaVersion: 1,
      runId,
      seq: after + i + 1,
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

/** The first message key of each Query `h.store` sends while `body` runs (`MSG#<seq>`: where a read starts). */
async function queriesFrom<T>(body: () => Promise<T>): Promise<{ value: T; from: string[] }> {
  const doc = h.store.ctx.doc;
  const send = doc.send;
  const from: string[] = [];
  doc.send = ((command: unknown, ...rest: unknown[]) => {
    if (command instanceof QueryCommand) {
      const key = command.input.ExpressionAttributeValues?.[':from'];
      if (typeof key === 'string' && key.startsWith('MSG#')) from.push(key);
    }
    return (send as (...args: unknown[]) => unknown).call(doc, command, ...rest);
  }) as typeof send;
  try {
    return { value: await body(), from };
  } finally {
    doc.send = send;
  }
}

/** A page read as a container that holds nothing of the run would read it (its own store). */
const coldPage = (runId: string, nextToken: string) =>
  readTranscriptPage({ store: new DynamoStore(h.store.ctx) } as unknown as ApiDeps, runId, { nextToken });

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
    const tokens: (string | undefined)[] = [];
    const readsOfPage: string[][] = [];
    const messages = await readWholeTranscript(runId, async (path) => {
      const { value, from } = await queriesFrom(() => lambdaGet(path));
      const { result, bytes } = value;
      expect(result.statusCode).toBe(200);
      sizes.push(bytes);
      readsOfPage.push([...new Set(from)]);
      tokens.push(new URL(path, 'https://api.example.com').searchParams.get('nextToken') ?? undefined);
      const page = JSON.parse(result.body) as TranscriptPageBody;
      pages.push(page);
      return page;
    });
    expect(messages).toEqual(stored);
    // Each read starts at a message no other page started at: the parts after a message's first came from what
    // this container cut for it, not from reading the whole message again for every part.
    const starts = readsOfPage.flat();
    expect(starts.length).toBeGreaterThan(0);
    expect(new Set(starts).size).toBe(starts.length);
    // A container that holds nothing reads a later part itself (the last of the first large message, the
    // smaller one): the same page.
    const last = pages.findLastIndex((page) => page.messagePart?.seq === 1);
    expect(pages[last]!.messagePart!.part).toBeGreaterThan(0);
    expect(JSON.parse(JSON.stringify(await coldPage(runId, tokens[last]!)))).toEqual({
      runId,
      ...pages[last],
    });
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

  it('names a message appended after the last part of a message served before: the listing does not end early', async () => {
    const { runId } = await startRun();
    // ~1.15 MB as sent: two parts, the last part the transcript's end.
    await appendMessages(runId, [[{ type: 'text', text: jsonText(600_000) }]]);
    const opening = (await h.alice.get(`/v1/runs/${runId}/transcript`)).body as TranscriptPageBody;
    const page = async (token: string) =>
      (await h.alice.get(`/v1/runs/${runId}/transcript?nextToken=${encodeURIComponent(token)}`))
        .body as TranscriptPageBody;
    const first = await page(opening.nextToken!);
    expect(first.messagePart).toMatchObject({ seq: 1, part: 0, parts: 2 });
    const last = await page(first.nextToken!);
    expect(last.messagePart).toMatchObject({ seq: 1, part: 1 });
    expect(last.nextToken).toBeUndefined();
    // The run goes on: the same last part now leads to the message after it.
    await appendMessages(runId, [[{ type: 'text', text: 'after' }]], 1);
    const again = await page(first.nextToken!);
    expect(again.messagePart).toEqual(last.messagePart);
    const after = await page(again.nextToken!);
    expect(after.messages.map((m) => [m.seq, m.content])).toEqual([[2, [{ type: 'text', text: 'after' }]]]);
  });

  it("answers another owner's run as missing", async () => {
    const { runId } = await startRun();
    expect((await h.bob.get(`/v1/runs/${runId}/transcript`)).status).toBe(404);
  });
});
