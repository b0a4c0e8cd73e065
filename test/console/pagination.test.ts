/**
 * The runs and workflows lists past 100: each page shows 100, and a "Next" link carries the API's page token
 * (and the page's filters) to the next page, until the last page, which has no link. The console runs over the
 * real API app on DynamoDB Local; the runs and workflows are seeded straight into the store (cheap).
 */
import { beforeAll, describe, expect, it } from 'vitest';
import { apiHarness } from '../api/helpers.ts';
import { FixedClock, minimalWorkflow, seedRun, seedWorkflow } from '../support/store.ts';
import { aliceConsole } from './harness-console.ts';

const h = apiHarness();

const runIds = (html: string) =>
  [...html.matchAll(/<tr><td><a href="\/console\/runs\/(run_[A-Za-z0-9]+)">/g)].map((m) => m[1]);
const workflowRows = (html: string) =>
  [...html.matchAll(/<tr><td><a href="\/console\/runs\?workflow=/g)].length;
const nextHref = (html: string) =>
  /<a id="next" rel="next" href="([^"]+)">Next<\/a>/.exec(html)?.[1]?.replaceAll('&amp;', '&');

describe('console lists past 100', () => {
  let get: (path: string, status?: number) => Promise<string>;
  const seeded: string[] = [];
  beforeAll(async () => {
    const clock = new FixedClock();
    for (let i = 0; i < 101; i++)
      seeded.push(
        (
          await seedWorkflow(h.store, minimalWorkflow({ name: `paged-${i}` }), {
            owner: h.owners.alice,
            clock,
          })
        ).version.workflowId,
      );
    const { version } = await seedWorkflow(h.store, minimalWorkflow({ name: 'many-runs' }), {
      owner: h.owners.alice,
      clock,
    });
    for (let i = 0; i < 105; i++) await seedRun(h.store, version, { clock });
    get = await aliceConsole(h);
  }, 120_000);

  it('pages the runs 100 at a time with a Next link that keeps the filter', async () => {
    // Act
    const first = await get('/console/runs?status=pending');
    const next = nextHref(first);
    const second = await get(next ?? '/console/runs?status=none');

    // Assess
    expect(runIds(first)).toHaveLength(100);
    expect(next).toMatch(/^\/console\/runs\?status=pending&after=[A-Za-z0-9_-]+$/);
    expect(runIds(second)).toHaveLength(5);
    expect(nextHref(second)).toBeUndefined();
    expect(new Set([...runIds(first), ...runIds(second)]).size).toBe(105);
  });

  it('pages the workflows 100 at a time', async () => {
    const first = await get('/console/workflows');
    const next = nextHref(first);
    const second = await get(next ?? '/console/workflows');

    expect(workflowRows(first)).toBe(100);
    expect(next).toMatch(/^\/console\/workflows\?after=/);
    expect(workflowRows(second)).toBe(2);
    expect(nextHref(second)).toBeUndefined();
  });

  it("answers a forged page token with the API's refusal, not another owner's runs", async () => {
    const forged = Buffer.from(
      JSON.stringify({ pk: 'RUN#run_x', sk: 'RUN', gsi1pk: 'OWNER#someone-else', gsi1sk: 'RUN#' }),
    ).toString('base64url');
    const page = await get(`/console/runs?after=${forged}`, 400);
    expect(page).toContain('The API refused this request');
    expect(runIds(page)).toEqual([]);
  });
});
