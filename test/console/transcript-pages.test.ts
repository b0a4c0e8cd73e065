/**
 * The run page shows the transcript a page at a time, as the API gives it (each page a Lambda response at
 * most: docs/api.md): "Later messages" carries the page token on, a message larger than a page is shown a
 * part a page, and the last page has no link.
 */
import { beforeAll, describe, expect, it } from 'vitest';
import { messageItems } from '../../shared/store/message-items.ts';
import { apiHarness, definition } from '../api/helpers.ts';
import { putItems } from '../support/lambda-pages.ts';
import { aliceConsole } from './harness-console.ts';

const h = apiHarness();

const laterHref = (html: string) =>
  /<a id="transcript-next" href="([^"]+)"/.exec(html)?.[1]?.replaceAll('&amp;', '&');

describe('console run page: transcript pages', () => {
  let get: (path: string) => Promise<string>;
  let runId: string;
  beforeAll(async () => {
    get = await aliceConsole(h);
    const { workflowId } = (await h.alice.post('/v1/workflows', definition())).body.workflow;
    runId = (await h.alice.post(`/v1/workflows/${workflowId}/runs`, { input: 'hello' })).body.run.runId;
    // Two answers of 700 KB (two cannot share a 1 MB page), the second too large for a page of its own as sent.
    const texts = ['a'.repeat(700_000), '"quoted"'.repeat(150_000)];
    const items = texts.flatMap((text, i) =>
      messageItems({
        schemaVersion: 1,
        runId,
        seq: i + 1,
        turn: 0,
        role: 'assistant',
        content: [{ type: 'text', text: `answer ${i + 1}: ${text}` }],
        createdAt: '2026-12-02T00:00:00.000Z',
      }),
    );
    await putItems(h.store, items);
  }, 60_000);

  it('pages on with "Later messages" until the last page, a large message a part a page', async () => {
    const headings: string[] = [];
    let path: string | undefined = `/console/runs/${runId}`;
    while (path) {
      const html = await get(path);
      expect(Buffer.byteLength(html)).toBeLessThan(6 * 1024 * 1024);
      headings.push(...[...html.matchAll(/<h3>([^<]+)<\/h3>/g)].map((m) => m[1]!));
      path = laterHref(html);
    }
    expect(headings[0]).toBe('user · turn 0');
    expect(headings[1]).toBe('assistant · turn 0');
    expect(headings.slice(2).every((heading) => /^assistant · turn 0 · part \d+ of \d+$/.test(heading))).toBe(
      true,
    );
    expect(headings.length).toBeGreaterThan(3);
  });
});
