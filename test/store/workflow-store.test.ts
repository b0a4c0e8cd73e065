/**
 * The workflow store (shared/store/workflow-store.ts, WorkflowWrite's store) is one concern of the one table:
 * what it writes, the whole store (DynamoStore, every other function's) reads on the same keys, and the
 * changes either makes are one owner change chain, signed the same way. Against DynamoDB Local.
 */
import { generateKeyPairSync } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { verifyOwnerChanges } from '../../shared/audit/owner-changes.ts';
import { verifySignedHeads } from '../../shared/audit/verify-signed.ts';
import { localKeySigner, localKeyVerifier } from '../../shared/audit-signing/local-key.ts';
import { newWorkflowRecords, type WorkflowHead } from '../../shared/schemas/workflow-record.ts';
import { DynamoStore, WorkflowStore } from '../../shared/store/index.ts';
import { validateWorkflowDefinition } from '../../shared/workflow-file/parse.ts';
import { FixedClock, minimalWorkflow, randomIds, testStore, uniqueOwner } from '../support/store.ts';

const keyPair = generateKeyPairSync('ec', { namedCurve: 'P-256' });
const signer = localKeySigner(keyPair.privateKey.export({ type: 'pkcs8', format: 'pem' }) as string);
const verifier = localKeyVerifier(keyPair.publicKey.export({ type: 'spki', format: 'pem' }) as string);

// One table, one client: the two stores differ only in what they know.
const { ctx } = testStore();
const workflows = new WorkflowStore(ctx, { signer });
const full = new DynamoStore(ctx, { signer });
const clock = new FixedClock();
const at = (minutes: number) => new Date(clock.nowMs() + minutes * 60_000).toISOString();

function definition(overrides: Record<string, unknown> = {}) {
  const parsed = validateWorkflowDefinition(minimalWorkflow(overrides));
  if (!parsed.ok) throw new Error(JSON.stringify(parsed.errors));
  return parsed.definition;
}

describe('WorkflowStore against DynamoDB Local', () => {
  it('writes what DynamoStore reads, in one signed owner change chain with the changes DynamoStore makes', async () => {
    const owner = uniqueOwner();
    const created = newWorkflowRecords({
      owner,
      workflowId: randomIds.next('wf'),
      definition: definition(),
      now: at(0),
      author: 'alice',
    });
    await workflows.createWorkflow(created.head, created.version);

    // A draft saved and published by the workflow store.
    const withDraft: WorkflowHead = { ...created.head, draftVersion: 2, updatedAt: at(1) };
    const draft = {
      ...created.version,
      version: 2,
      definition: definition({ prompt: { system: 'Second.' } }),
      status: 'draft' as const,
      createdAt: at(1),
      updatedAt: at(1),
    };
    // Each head write is fenced on the head it was given (its `rev`): the next one starts from the head written.
    const savedDraft = await workflows.saveWorkflowDraft(created.head, withDraft, draft, 'alice');
    const { draftVersion: _closed, ...rest } = savedDraft;
    const published = await workflows.publishWorkflowDraft(
      savedDraft,
      { ...rest, latestVersion: 2, updatedAt: at(2) },
      draft,
      {
        ...draft,
        status: 'published',
        publishedAt: at(2),
        publishedBy: 'alice',
      },
    );

    // DynamoStore reads them and disables the workflow; the workflow store reads that.
    expect(await full.getWorkflowHead(owner, created.head.workflowId)).toEqual(published);
    expect((await full.getWorkflowVersion(owner, created.head.workflowId, 2))?.status).toBe('published');
    const disabled = await full.updateWorkflowHead(
      published,
      { ...published, enabled: false, updatedAt: at(3) },
      false,
      'bob',
    );
    expect(await workflows.getWorkflowHead(owner, created.head.workflowId)).toEqual(disabled);
    expect(
      (await workflows.listWorkflowVersions(owner, created.head.workflowId)).map((v) => v.status),
    ).toEqual(['published', 'published']);

    // One chain: every change in order, unbroken, and its heads signed by either store verify.
    const changes = await full.listOwnerChangeItems(owner);
    expect((changes as { type: string }[]).map((change) => change.type)).toEqual([
      'workflow_created',
      'workflow_draft_saved',
      'workflow_version_published',
      'workflow_disabled',
    ]);
    expect(verifyOwnerChanges(changes, { owner })).toMatchObject({ ok: true, count: 4 });
    const signedHeads = await full.listSignedHeadItems(owner);
    expect(signedHeads).toHaveLength(4);
    expect(await verifySignedHeads(signedHeads, { anchors: [], changes }, { owner, verifier })).toMatchObject(
      { ok: true, count: 4 },
    );
  });

  it('keeps the trigger index DynamoStore lists', async () => {
    const owner = uniqueOwner();
    const workflowId = randomIds.next('wf');
    const trigger = { type: 'schedule' as const, expression: 'cron(0 7 * * ? *)', timezone: 'UTC' };
    await workflows.putTriggerIndex({ owner, workflowId, name: 'nightly', trigger });
    const listed = (await full.listTriggerIndex('schedule')).filter((entry) => entry.owner === owner);
    expect(listed).toEqual([{ owner, workflowId, name: 'nightly', trigger }]);
    await full.deleteTriggerIndex(owner, workflowId);
    expect((await workflows.listTriggerIndex('schedule')).filter((entry) => entry.owner === owner)).toEqual(
      [],
    );
  });
});
