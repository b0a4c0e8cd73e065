import { PutCommand } from '@aws-sdk/lib-dynamodb';
import { describe, expect, it } from 'vitest';
import type { OwnerChange } from '../../shared/audit/index.ts';
import { declaredApprovers } from '../../shared/notify/index.ts';
import { keys } from '../../shared/store/index.ts';
import { WorkflowConflictError } from '../../shared/store/workflows.ts';
import { refundGraph } from '../graph/fixtures.ts';
import { uniqueOwner } from '../support/store.ts';
import { apiHarness, definition } from './helpers.ts';

const put = (client: ReturnType<typeof apiHarness>['alice'], path: string, value: unknown) =>
  client.call('PUT', path, JSON.stringify(value), { headers: { 'content-type': 'application/json' } });

async function withDraft() {
  const h = apiHarness();
  const v1 = definition();
  const id = (await h.alice.post('/v1/workflows', v1)).body.workflow.workflowId as string;
  const syncsBefore = h.sync.requests.length;
  const v2 = { ...v1, prompt: { system: 'draft 2' } };
  const saved = await h.alice.post(`/v1/workflows/${id}/versions?draft=true`, v2);
  return { h, id, v1, v2, saved, syncsBefore };
}

describe('Workflow versions: draft and published', () => {
  it('saves a draft that runs and triggers ignore: the head keeps its latest published version', async () => {
    const { h, id, saved, syncsBefore } = await withDraft();

    expect(saved.status).toBe(201);
    expect(saved.body.workflow).toMatchObject({ latestVersion: 1, draftVersion: 2 });
    expect(saved.body.version).toMatchObject({ version: 2, status: 'draft', author: 'alice@laptop' });
    expect((await h.alice.get(`/v1/workflows/${id}`)).body.version).toMatchObject({
      version: 1,
      status: 'published',
    });
    expect((await h.alice.post(`/v1/workflows/${id}/runs`, {})).body.run.workflowVersion).toBe(1);
    expect(h.sync.requests.length).toBe(syncsBefore);
  });

  it('replaces the draft in place, then publishing makes it the latest, syncs triggers and runs start on it', async () => {
    const { h, id, v2 } = await withDraft();

    const replaced = await put(h.alice, `/v1/workflows/${id}/versions/2`, {
      ...v2,
      prompt: { system: 'draft 2b' },
    });
    const published = await h.alice.post(`/v1/workflows/${id}/versions/2/publish`);

    expect(replaced.status).toBe(200);
    expect(replaced.body.version).toMatchObject({
      version: 2,
      status: 'draft',
      definition: { prompt: { system: 'draft 2b' } },
    });
    expect(published.status).toBe(200);
    expect(published.body.workflow.latestVersion).toBe(2);
    expect(published.body.workflow.draftVersion).toBeUndefined();
    expect(published.body.version).toMatchObject({ status: 'published', publishedBy: 'alice@laptop' });
    expect(h.sync.requests.at(-1)).toMatchObject({ workflowId: id, enabled: true });
    expect((await h.alice.post(`/v1/workflows/${id}/runs`, {})).body.run.workflowVersion).toBe(2);
    expect((await h.alice.get(`/v1/workflows/${id}/versions/2`)).body.version.definition.prompt.system).toBe(
      'draft 2b',
    );
  });

  it('refuses to change a published version, a second draft, or a published save while a draft is open', async () => {
    const { h, id, v1 } = await withDraft();

    const putPublished = await put(h.alice, `/v1/workflows/${id}/versions/1`, v1);
    const publishPublished = await h.alice.post(`/v1/workflows/${id}/versions/1/publish`);
    const secondDraft = await h.alice.post(`/v1/workflows/${id}/versions?draft=true`, v1);
    const publishedSave = await h.alice.post(`/v1/workflows/${id}/versions`, v1);

    expect([putPublished.status, putPublished.body.error.code]).toEqual([409, 'version_published']);
    expect([publishPublished.status, publishPublished.body.error.code]).toEqual([409, 'version_published']);
    expect([secondDraft.status, secondDraft.body.error.code]).toEqual([409, 'draft_open']);
    expect([publishedSave.status, publishedSave.body.error.code]).toEqual([409, 'draft_open']);
    expect((await h.alice.get(`/v1/workflows/${id}/versions/1`)).body.version.definition).toMatchObject({
      prompt: v1.prompt,
    });
  });

  it('answers a foreign or missing draft with the same 404', async () => {
    const { h, id, v2 } = await withDraft();

    expect((await put(h.bob, `/v1/workflows/${id}/versions/2`, v2)).status).toBe(404);
    expect((await h.bob.post(`/v1/workflows/${id}/versions/2/publish`)).status).toBe(404);
    expect((await put(h.alice, `/v1/workflows/${id}/versions/9`, v2)).status).toBe(404);
  });

  it('audits draft saved, updated and published in the owner chain, which verifies', async () => {
    const { h, id, v2 } = await withDraft();
    await put(h.alice, `/v1/workflows/${id}/versions/2`, { ...v2, prompt: { system: 'draft 2b' } });
    await h.alice.post(`/v1/workflows/${id}/versions/2/publish`);

    const audit = await h.alice.get('/v1/audit');

    const mine = (audit.body.changes.entries as OwnerChange[]).filter((change) => change.workflowId === id);
    expect(mine.map((change) => [change.type, change.version, change.author])).toEqual([
      ['workflow_created', 1, 'alice@laptop'],
      ['workflow_draft_saved', 2, 'alice@laptop'],
      ['workflow_draft_updated', 2, 'alice@laptop'],
      ['workflow_version_published', 2, 'alice@laptop'],
    ]);
    expect(mine[1]!.data.definitionHash).not.toBe(mine[2]!.data.definitionHash);
    expect(mine[2]!.data.definitionHash).toBe(mine[3]!.data.definitionHash);
    expect(audit.body.changes.verification).toMatchObject({ ok: true });
  });

  it('fences a replace and a publish on the draft that was read (a concurrent replace wins, the stale one is a conflict)', async () => {
    const { h, id } = await withDraft();
    const head = (await h.store.getWorkflowHead(h.owners.alice, id))!;
    const read = (await h.store.getWorkflowVersion(h.owners.alice, id, 2))!;
    const newer = { ...read, updatedAt: '2030-01-01T00:00:00.000Z' };
    await h.store.replaceWorkflowDraft(head, read, newer, 'alice@laptop');

    const staleReplace = h.store.replaceWorkflowDraft(
      head,
      read,
      { ...read, updatedAt: '2030-01-02T00:00:00.000Z' },
      'x',
    );
    const { draftVersion: _, ...rest } = head;
    const stalePublish = h.store.publishWorkflowDraft(head, { ...rest, latestVersion: 2 }, read, {
      ...read,
      status: 'published',
    });

    // Both at once: awaiting one first leaves the other's rejection unhandled while it waits.
    await Promise.all([
      expect(staleReplace).rejects.toBeInstanceOf(WorkflowConflictError),
      expect(stalePublish).rejects.toBeInstanceOf(WorkflowConflictError),
    ]);
    expect((await h.store.getWorkflowVersion(h.owners.alice, id, 2))!.updatedAt).toBe(
      '2030-01-01T00:00:00.000Z',
    );
    expect((await h.store.getWorkflowHead(h.owners.alice, id))!.latestVersion).toBe(1);
  });

  it('never serves a stale draft from the version cache: a replaced draft reads as replaced', async () => {
    const { h, id, v2 } = await withDraft();
    await h.store.getWorkflowVersion(h.owners.alice, id, 2);

    await put(h.alice, `/v1/workflows/${id}/versions/2`, { ...v2, prompt: { system: 'draft 2b' } });
    await h.alice.post(`/v1/workflows/${id}/versions/2/publish`);

    const read = await h.store.getWorkflowVersion(h.owners.alice, id, 2);
    expect(read).toMatchObject({ status: 'published', definition: { prompt: { system: 'draft 2b' } } });
  });

  it('reads a version stored before drafts existed (no status) as published', async () => {
    const h = apiHarness();
    const id = (await h.alice.post('/v1/workflows', definition())).body.workflow.workflowId as string;
    const stored = (await h.store.getWorkflowVersion(h.owners.alice, id, 1))!;
    const { status: _, ...old } = stored;
    await h.store.ctx.doc.send(
      new PutCommand({
        TableName: h.store.ctx.table,
        Item: { ...keys.workflowVersion(h.owners.alice, id, 1), ...old },
      }),
    );

    expect((await h.alice.get(`/v1/workflows/${id}/versions/1`)).body.version.status).toBe('published');
  });
});

describe('Workflow versions: graph drafts get the save-time checks', () => {
  it('reads a stored graph version by its shape only: a rule added since it was saved never makes it unreadable', async () => {
    const h = apiHarness();
    const graph = refundGraph();
    const id = (await h.alice.post('/v1/workflows', graph)).body.workflow.workflowId as string;
    const stored = (await h.store.getWorkflowVersion(h.owners.alice, id, 1))!;
    // As if saved under older rules: an edge that closes a cycle, which validation refuses today.
    const older = {
      ...stored,
      version: 2,
      definition: { ...stored.definition, edges: [...graph.edges, { from: 'draft_reply', to: 'triage' }] },
    };
    await h.store.ctx.doc.send(
      new PutCommand({
        TableName: h.store.ctx.table,
        Item: { ...keys.workflowVersion(h.owners.alice, id, 2), ...older },
      }),
    );

    const read = await h.store.getWorkflowVersion(h.owners.alice, id, 2);

    expect(read?.definition).toMatchObject({
      kind: 'graph',
      edges: expect.arrayContaining([{ from: 'draft_reply', to: 'triage' }]),
    });
  });

  it('saves a graph draft and refuses one whose human_task assignee the deployment cannot reach', async () => {
    const owners = { alice: uniqueOwner(), bob: uniqueOwner() };
    const reach = declaredApprovers('sns', { 'manager@example.com': [owners.alice] });
    const h = apiHarness({ owners, approverReach: reach });
    const graph = refundGraph();
    const id = (await h.alice.post('/v1/workflows', graph)).body.workflow.workflowId as string;
    graph.nodes[2].assignees = ['eve@example.com'];

    const reply = await h.alice.post(`/v1/workflows/${id}/versions?draft=true`, graph);

    expect(reply.status).toBe(400);
    expect(reply.body.error.fields).toEqual([
      { path: 'nodes[2].assignees[0]', message: expect.stringContaining("'eve@example.com'") },
    ]);
  });

  it('refuses a bad graph draft naming the edge', async () => {
    const h = apiHarness();
    const graph = refundGraph();
    const id = (await h.alice.post('/v1/workflows', graph)).body.workflow.workflowId as string;
    graph.edges[1].when = 'steps.nobody.output.x > 1';

    const reply = await h.alice.post(`/v1/workflows/${id}/versions?draft=true`, graph);

    expect(reply.status).toBe(400);
    expect(reply.body.error.fields).toEqual([
      { path: 'edges[1].when', message: expect.stringContaining("there is no step 'nobody'") },
    ]);
  });
});
