/**
 * The workflow routes against a head that moves under them: a save from a head read before a disable is a
 * 409 (the head stays disabled), a route's trigger sync reflects the head as it is when the sync runs (not
 * the snapshot the route wrote), and a signing fault after a committed change neither fails the request nor
 * skips the sync (shared/store/workflow-store.ts, shared/api/workflow-access.ts).
 */
import { generateKeyPairSync } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import type { AnchorSigner } from '../../shared/audit/index.ts';
import { localKeyVerifier } from '../../shared/audit-signing/local-key.ts';
import type { WorkflowHead } from '../../shared/schemas/workflow-record.ts';
import { apiHarness, definition } from './helpers.ts';

const schedule = { type: 'schedule', expression: 'rate(5 minutes)', timezone: 'UTC' };

const indexed = async (h: ReturnType<typeof apiHarness>, workflowId: string) =>
  (await h.store.listTriggerIndex('schedule')).filter((entry) => entry.workflowId === workflowId);

async function scheduledWorkflow(h: ReturnType<typeof apiHarness>) {
  const created = await h.alice.post('/v1/workflows', definition({ trigger: schedule }));
  expect(created.status).toBe(201);
  return created.body.workflow as WorkflowHead;
}

describe('workflow routes on a moving head', () => {
  it('a version saved from a head read before a disable answers 409 and the workflow stays disabled', async () => {
    // Prepare: the owner's disable commits between the save's read of the head and its write.
    const h = apiHarness();
    const created = await scheduledWorkflow(h);
    const save = h.store.addWorkflowVersion.bind(h.store);
    h.store.addWorkflowVersion = async (previous, head, version) => {
      const now = (await h.store.getWorkflowHead(previous.owner, previous.workflowId))!;
      await h.store.updateWorkflowHead(now, { ...now, enabled: false }, false, 'other');
      return save(previous, head, version);
    };

    // Act
    const reply = await h.alice.post(
      `/v1/workflows/${created.workflowId}/versions`,
      definition({ name: created.name, trigger: schedule }),
    );

    // Assess: a conflict, not a 500; still disabled, still version 1.
    expect(reply.status).toBe(409);
    expect(reply.body.error.code).toBe('concurrent_update');
    const head = (await h.alice.get(`/v1/workflows/${created.workflowId}`)).body.workflow;
    expect(head).toMatchObject({ enabled: false, latestVersion: 1 });
  });

  it("syncs the head as it is when the sync runs: a disable whose sync comes after an enable's leaves the schedule", async () => {
    // Prepare: right after A's disable commits, B enables the workflow and syncs (another container).
    const h = apiHarness();
    const created = await scheduledWorkflow(h);
    const update = h.store.updateWorkflowHead.bind(h.store);
    let raced = false;
    h.store.updateWorkflowHead = async (previous, head, releaseName, author) => {
      const written = await update(previous, head, releaseName, author);
      if (!raced) {
        raced = true;
        const enabled = await update(written, { ...written, enabled: true }, false, 'b');
        await h.sync.sync({
          owner: enabled.owner,
          workflowId: enabled.workflowId,
          name: enabled.name,
          enabled: true,
          deleted: false,
          trigger: schedule as never,
          rev: enabled.rev ?? 0,
        });
      }
      return written;
    };

    // Act: A's disable; its sync runs after B's.
    const reply = await h.alice.post(`/v1/workflows/${created.workflowId}/disable`);

    // Assess: A's answer is its own write; the schedule follows the head (enabled by B), not A's snapshot.
    expect(reply.status).toBe(200);
    expect(reply.body.workflow.enabled).toBe(false);
    expect((await h.store.getWorkflowHead(created.owner, created.workflowId))?.enabled).toBe(true);
    expect(h.sync.requests.at(-1)).toMatchObject({ enabled: true, rev: 3 });
    expect(await indexed(h, created.workflowId)).toHaveLength(1);
  });

  it('a signing fault after the commit answers the committed write and still syncs its trigger', async () => {
    // Prepare: a signer that always fails (KMS refusing), a verifier of some other key.
    const keyPair = generateKeyPairSync('ec', { namedCurve: 'P-256' });
    const failing: AnchorSigner = {
      keyId: 'local:broken',
      sign: async () => {
        throw new Error('KMS refused');
      },
    };
    const verifier = localKeyVerifier(keyPair.publicKey.export({ type: 'spki', format: 'pem' }) as string);
    const h = apiHarness({ audit: { signer: failing, verifier } });

    // Act: create (schedule indexed), then disable (schedule removed).
    const created = await h.alice.post('/v1/workflows', definition({ trigger: schedule }));
    const workflowId = created.body.workflow?.workflowId as string;
    const afterCreate = await indexed(h, workflowId);
    const disabled = await h.alice.post(`/v1/workflows/${workflowId}/disable`);

    // Assess: both answered as done, both synced; the changes are committed and audited (unsigned).
    expect(created.status).toBe(201);
    expect(afterCreate).toHaveLength(1);
    expect(disabled.status).toBe(200);
    expect(await indexed(h, workflowId)).toEqual([]);
    expect(h.sync.requests.map((request) => request.enabled)).toEqual([true, false]);
    const changes = (await h.store.listOwnerChangeItems(h.owners.alice)) as { type: string }[];
    expect(changes.map((change) => change.type)).toEqual(['workflow_created', 'workflow_disabled']);
  });
});
