import { GetCommand, PutCommand } from '@aws-sdk/lib-dynamodb';
import { describe, expect, it } from 'vitest';
import type { AuditEntry } from '../../shared/audit/index.ts';
import { verifyTranscriptBinding } from '../../shared/core/transcript-binding.ts';
import { keys } from '../../shared/store/index.ts';
import { driveRun, engineDeps, ScriptedModel, text, toolUse } from '../support/engine.ts';
import { apiHarness, definition } from './helpers.ts';

const h = apiHarness();

/** A finished run with one dispatched call (t1) and one denied call (t2, not an allowed action). */
async function finishedRun() {
  const created = await h.alice.post('/v1/workflows', definition());
  const { workflowId } = created.body.workflow;
  const run = (await h.alice.post(`/v1/workflows/${workflowId}/runs`, {})).body.run;
  const model = new ScriptedModel([
    {
      content: [
        text('Logging, then fetching.'),
        toolUse('t1', 'notes_append', { name: 'log', line: 'hello' }),
        toolUse('t2', 'http_request', { method: 'GET', url: 'https://example.com/' }),
      ],
      stopReason: 'tool_use',
    },
    { content: [text('Done.')], stopReason: 'end_turn' },
  ]);
  await driveRun(engineDeps(h.store, model), run.runId);
  const entries = await h.store.listAudit(run.runId);
  const seqOf = (type: string, toolUseId?: string) =>
    entries.find((e) => e.type === type && (toolUseId === undefined || e.data.toolUseId === toolUseId))?.seq;
  return { runId: run.runId as string, entries, seqOf };
}

async function editMessage(runId: string, seq: number, edit: (item: Record<string, unknown>) => void) {
  const { table, doc } = h.store.ctx;
  const stored = await doc.send(new GetCommand({ TableName: table, Key: keys.message(runId, seq) }));
  const original = structuredClone(stored.Item!);
  const item = structuredClone(stored.Item!);
  edit(item);
  await doc.send(new PutCommand({ TableName: table, Item: item }));
  return () => doc.send(new PutCommand({ TableName: table, Item: original }));
}

const verificationOf = async (runId: string) =>
  (await h.alice.get(`/v1/runs/${runId}/audit`)).body.verification;

describe('audit verification binds the stored transcript', () => {
  it('records the hashes: model_call the assistant content, settle the result, denial the args and result', async () => {
    const { entries } = await finishedRun();
    const hash = expect.stringMatching(/^[0-9a-f]{64}$/);
    expect(entries.find((e) => e.type === 'model_call')?.data).toMatchObject({ contentHash: hash });
    expect(entries.find((e) => e.type === 'settle')?.data).toMatchObject({
      toolUseId: 't1',
      contentHash: hash,
    });
    expect(entries.find((e) => e.type === 'denial')?.data).toMatchObject({
      toolUseId: 't2',
      argsHash: hash,
      contentHash: hash,
    });
  });

  it('verifies an unedited transcript', async () => {
    const { runId } = await finishedRun();
    expect(await verificationOf(runId)).toMatchObject({ ok: true });
  });

  it('names the model_call entry when the stored assistant message was edited', async () => {
    const { runId, seqOf } = await finishedRun();
    const restore = await editMessage(runId, 1, (item) => {
      (item.content as { text?: string }[])[0]!.text = 'Something the model never said.';
    });
    expect(await verificationOf(runId)).toMatchObject({
      ok: false,
      reason: 'transcript_mismatch',
      firstBrokenSeq: seqOf('model_call'),
      message: expect.stringContaining('model_call'),
    });
    await restore();
    expect(await verificationOf(runId)).toMatchObject({ ok: true });
  });

  it.each([
    ['settle', 't1', 0],
    ['denial', 't2', 1],
  ])('names the %s entry when its stored tool result was edited', async (type, toolUseId, index) => {
    const { runId, seqOf } = await finishedRun();
    await editMessage(runId, 2, (item) => {
      (item.content as { content?: string }[])[index]!.content = 'an edited result';
    });
    expect(await verificationOf(runId)).toMatchObject({
      ok: false,
      reason: 'transcript_mismatch',
      firstBrokenSeq: seqOf(type, toolUseId),
      message: expect.stringContaining(`(${type})`),
    });
  });

  it('names the denial entry when the refused arguments no longer match', async () => {
    const { runId, entries, seqOf } = await finishedRun();
    const messages = await h.store.listMessages(runId);
    const edited = structuredClone(messages);
    const use = edited[1]!.content.find((block) => block.type === 'tool_use' && block.id === 't2');
    if (use?.type === 'tool_use') use.input = { method: 'GET', url: 'https://elsewhere.example/' };
    // Without the model_call binding (an entry written before it existed), the denial still catches it.
    const legacy: AuditEntry[] = entries.map((entry) =>
      entry.type === 'model_call' ? { ...entry, data: { ...entry.data, contentHash: undefined } } : entry,
    );
    expect(verifyTranscriptBinding(legacy, messages)).toEqual({ ok: true });
    expect(verifyTranscriptBinding(legacy, edited)).toMatchObject({
      ok: false,
      firstBrokenSeq: seqOf('denial', 't2'),
      message: expect.stringContaining('arguments'),
    });
  });

  it('reports a transcript item that no longer reads, instead of failing the request', async () => {
    const { runId } = await finishedRun();
    await editMessage(runId, 2, (item) => {
      item.parts = 3;
    });
    const reply = await h.alice.get(`/v1/runs/${runId}/audit`);
    expect(reply.status).toBe(200);
    expect(reply.body.verification).toMatchObject({
      ok: false,
      reason: 'transcript_mismatch',
      message: expect.stringContaining('MSG#000002'),
    });
  });
});
