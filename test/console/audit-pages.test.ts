/**
 * The run page shows a chain too long for one API answer a page at a time (GET /v1/runs/{id}/audit pages under
 * Lambda's 6 MB): each page says which entries it verified, "Later audit entries" carries the page token on,
 * later pages link back to the first, and the last page has no "Later" link.
 */
import { beforeAll, describe, expect, it } from 'vitest';
import { apiHarness, definition } from '../api/helpers.ts';
import { growRunChain } from '../support/audit-chain.ts';
import { aliceConsole } from './harness-console.ts';

const h = apiHarness();

const laterHref = (html: string) =>
  /<a id="audit-next" href="([^"]+)"/.exec(html)?.[1]?.replaceAll('&amp;', '&');
const verifiedLine = (html: string) =>
  /<p id="verification" class="ok">([\s\S]*?)<\/p>/.exec(html)?.[1]?.replaceAll(/\s+/g, ' ');

describe('console run page: audit pages', () => {
  let get: (path: string) => Promise<string>;
  let runId: string;
  let entries: number;
  beforeAll(async () => {
    get = await aliceConsole(h);
    const { workflowId } = (await h.alice.post('/v1/workflows', definition())).body.workflow;
    runId = (await h.alice.post(`/v1/workflows/${workflowId}/runs`, { input: 'hello' })).body.run.runId;
    // 30 entries of 100 KB: more than one page of the API's answer.
    entries = (await growRunChain(h.store, runId, 30, 100_000)).length;
  }, 60_000);

  it('pages on with "Later audit entries", each page naming the entries it verified', async () => {
    const ranges: [number, number][] = [];
    const backLinks: boolean[] = [];
    let path: string | undefined = `/console/runs/${runId}`;
    while (path) {
      const html = await get(path);
      const line = verifiedLine(html) ?? '';
      const match = /Audit entries (\d+) to (\d+) verified/.exec(line);
      expect(match, line).not.toBeNull();
      ranges.push([Number(match![1]), Number(match![2])]);
      backLinks.push(html.includes('>First audit entries</a>'));
      path = laterHref(html);
    }
    expect(ranges.length).toBeGreaterThan(1);
    // The pages cover the chain once, in order, each starting where the one before ended.
    expect(ranges[0]![0]).toBe(0);
    for (const [i, [from]] of ranges.entries()) if (i > 0) expect(from).toBe(ranges[i - 1]![1] + 1);
    expect(ranges.at(-1)![1]).toBe(entries - 1);
    expect(backLinks).toEqual(ranges.map((_, i) => i > 0));
  });
});
