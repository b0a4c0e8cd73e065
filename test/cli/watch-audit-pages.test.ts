/**
 * `wf run start --wait` (watch.ts) polls the run's audit over the paged API (GET /v1/runs/{id}/audit): each poll continues from
 * the last page it read, instead of reading every page from the first again, and still prints each entry once
 * as the chain grows across pages. Counted in audit requests.
 */
import { UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { beforeAll, describe, expect, it } from 'vitest';
import { appendAuditEntry } from '../../shared/audit/index.ts';
import { watchRun } from '../../shared/cli/watch.ts';
import { type RunAuditPage, readRunAudit } from '../../shared/runs/audit-reader.ts';
import type { Run } from '../../shared/schemas/run.ts';
import { auditItems } from '../../shared/store/audit-items.ts';
import { keys } from '../../shared/store/keys.ts';
import { apiHarness, definition } from '../api/helpers.ts';
import { jsonText, putItems } from '../support/lambda-pages.ts';

const h = apiHarness();
const AT = '2026-12-02T00:00:00.000Z';

/** Appends `count` status entries of 250 KB each to the run's chain (4 fill a page), as the store stores them. */
async function grow(runId: string, count: number): Promise<void> {
  let head = (await h.store.listAudit(runId)).at(-1)!;
  const added = [];
  for (let i = 0; i < count; i++) {
    head = appendAuditEntry(head, {
      owner: head.owner,
      runId,
      at: AT,
      type: 'status_changed',
      actor: 'system',
      data: { from: 'running', to: 'running', note: jsonText(250_000) },
    });
    added.push(head);
  }
  await putItems(h.store, auditItems(runId, added));
  await h.store.ctx.doc.send(
    new UpdateCommand({
      TableName: h.store.ctx.table,
      Key: keys.run(runId),
      UpdateExpression: 'SET audit = :audit',
      ExpressionAttributeValues: { ':audit': { seq: head.seq + 1, head: head.hash } },
    }),
  );
}

describe('wf run start --wait: audit pages', () => {
  let runId: string;
  beforeAll(async () => {
    const { workflowId } = (await h.bob.post('/v1/workflows', definition())).body.workflow;
    runId = (await h.bob.post(`/v1/workflows/${workflowId}/runs`, { input: 'hello' })).body.run.runId;
    await grow(runId, 10);
  }, 120_000);

  it('reads each page once, then only the last one per poll, and prints every entry once as the chain grows', async () => {
    // Prepare: the run reads as running for four polls (the chain grows by two pages at the second), then ended.
    let polls = 0;
    const auditPaths: string[] = [];
    const perPoll: number[] = [];
    const client = {
      get: async <T>(path: string): Promise<T> => {
        if (path === `/v1/runs/${runId}`) {
          polls += 1;
          if (polls === 2) await grow(runId, 8);
          const { run } = (await h.bob.get(path)).body as { run: Run };
          return { run: { ...run, status: polls < 4 ? 'running' : 'cancelled' } } as T;
        }
        auditPaths.push(path);
        perPoll[polls - 1] = (perPoll[polls - 1] ?? 0) + 1;
        return (await h.bob.get(path)).body as T;
      },
    };
    const lines: string[] = [];

    // Act
    await watchRun(client, runId, { intervalMs: 0, print: (line) => lines.push(line) });

    // Assess: every entry printed once, in order; each poll after the first read from the last page on.
    const stored = await h.store.listAudit(runId);
    const pagesOfWholeChain = auditPaths.filter((path) => !path.includes('nextToken')).length;
    expect(pagesOfWholeChain).toBe(1);
    expect(lines.filter((line) => line === 'status: running → running')).toHaveLength(18);
    expect(new Set(lines).size + 17).toBe(lines.length);
    expect(stored.length).toBeGreaterThan(18);
    console.log(`[watch] ${stored.length} entries, audit requests per poll: ${perPoll.join(', ')}`);
    // Each page of the final chain once, plus the page each later poll started from again (polls 2 to 4).
    const { pages } = await readRunAudit(runId, async (path) => (await h.bob.get(path)).body as RunAuditPage);
    expect(pages).toBeGreaterThan(perPoll[0]!);
    expect(perPoll.slice(2)).toEqual([1, 1]);
    expect(auditPaths).toHaveLength(pages + 3);
  });
});
