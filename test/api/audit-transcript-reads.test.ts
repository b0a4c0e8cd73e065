/**
 * GET /v1/runs/{id}/audit reads, per page, the part of the transcript that page's entries bind
 * (shared/api/routes/run-audit-transcript.ts), not the whole transcript: walking a long run's chain page by
 * page reads the transcript about once, not once a page. Counted in message items DynamoDB answered.
 */
import { UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { beforeAll, describe, expect, it } from 'vitest';
import { type AuditEntry, appendAuditEntry } from '../../shared/audit/index.ts';
import { itemBytes } from '../../shared/core/item-size.ts';
import { contentHashOf } from '../../shared/core/transcript-limits.ts';
import { type RunAuditPage, readRunAudit } from '../../shared/runs/audit-reader.ts';
import type { TranscriptMessage } from '../../shared/schemas/message.ts';
import { auditItems } from '../../shared/store/audit-items.ts';
import { keys } from '../../shared/store/keys.ts';
import { messageItems } from '../../shared/store/message-items.ts';
import { jsonText, putItems } from '../support/lambda-pages.ts';
import { apiHarness, definition } from './helpers.ts';

const h = apiHarness();
const AT = '2026-12-02T00:00:00.000Z';
const TURNS = 16;

/** Appends `TURNS` turns to the run: an assistant answer of 100 KB, its model_call entry and 250 KB of audit. */
async function growRun(runId: string): Promise<number> {
  const messages = await h.store.listMessages(runId);
  let head = (await h.store.listAudit(runId)).at(-1)!;
  const added: AuditEntry[] = [];
  const append = (type: 'model_call' | 'status_changed', data: Record<string, unknown>) => {
    head = appendAuditEntry(head, { owner: head.owner, runId, at: AT, type, actor: 'system', data });
    added.push(head);
  };
  let seq = messages.length;
  for (let turn = 0; turn < TURNS; turn++) {
    const message = (role: 'user' | 'assistant', text: string): TranscriptMessage => ({
      schemaVersion: 1,
      runId,
      seq: seq++,
      turn,
      role,
      content: [{ type: 'text', text }],
      createdAt: AT,
    });
    const answer = message('assistant', jsonText(100_000));
    messages.push(answer, message('user', `go on after turn ${turn}`));
    append('model_call', { turn, contentHash: contentHashOf(answer.content) });
    append('status_changed', { note: jsonText(250_000), turn });
  }
  await putItems(h.store, messages.flatMap(messageItems));
  for (let i = 0; i < added.length; i += 10)
    await putItems(h.store, auditItems(runId, added.slice(i, i + 10)));
  await h.store.ctx.doc.send(
    new UpdateCommand({
      TableName: h.store.ctx.table,
      Key: keys.run(runId),
      UpdateExpression: 'SET audit = :audit, messageCount = :count',
      ExpressionAttributeValues: {
        ':audit': { seq: head.seq + 1, head: head.hash },
        ':count': messages.length,
      },
    }),
  );
  return messages.flatMap(messageItems).reduce((sum, item) => sum + itemBytes(item), 0);
}

/** Counts the message items DynamoDB answers (Query requests and their items' bytes), whichever way they are read. */
function countMessageReads() {
  const read = { requests: 0, bytes: 0 };
  h.store.ctx.doc.middlewareStack.add(
    (next, context) => async (args) => {
      const result = await next(args);
      const items = (result.output as { Items?: Record<string, unknown>[] }).Items ?? [];
      const messages = items.filter((item) => String(item.sk).startsWith('MSG#'));
      if (context.commandName === 'QueryCommand' && messages.length > 0) {
        read.requests += 1;
        read.bytes += messages.reduce((sum, item) => sum + itemBytes(item), 0);
      }
      return result;
    },
    { step: 'initialize', name: 'countMessageReads' },
  );
  return read;
}

describe('GET /v1/runs/{id}/audit: transcript reads', () => {
  let runId: string;
  let transcriptBytes: number;
  beforeAll(async () => {
    const { workflowId } = (await h.bob.post('/v1/workflows', definition())).body.workflow;
    runId = (await h.bob.post(`/v1/workflows/${workflowId}/runs`, { input: 'hello' })).body.run.runId;
    transcriptBytes = await growRun(runId);
  }, 120_000);

  it('reads about the transcript once over all pages, and every page verifies its bindings', async () => {
    // Prepare
    const read = countMessageReads();
    const pages: RunAuditPage[] = [];

    // Act
    const audit = await readRunAudit(runId, async (path) => {
      const page = (await h.bob.get(path)).body as RunAuditPage;
      pages.push(page);
      return page;
    });

    // Assess: several pages, each checked, the whole chain verified; the transcript read about once.
    expect(pages.length).toBeGreaterThan(3);
    for (const page of pages) expect(page.verification.ok).toBe(true);
    expect(audit.verification.ok).toBe(true);
    console.log(
      `[run audit] ${pages.length} pages; transcript ${transcriptBytes} bytes; read ${read.bytes} bytes of message items in ${read.requests} queries`,
    );
    // Each page reads the head of one message more than it binds (it shows the last one is whole).
    expect(read.bytes).toBeLessThan(2 * transcriptBytes);
  });
});
