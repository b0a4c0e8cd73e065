import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PutCommand } from '@aws-sdk/lib-dynamodb';
import { describe, expect, it } from 'vitest';
import { type OwnerChange, sealOwnerChange } from '../../shared/audit/index.ts';
import {
  ensureLocalSigningKey,
  localKeySigner,
  localKeyVerifierFromFile,
} from '../../shared/audit-signing/index.ts';
import { keys } from '../../shared/store/index.ts';
import { seedRun } from '../support/store.ts';
import { apiHarness, definition } from './helpers.ts';

const keyFiles = ensureLocalSigningKey(mkdtempSync(join(tmpdir(), 'wf-audit-api-')));
const h = apiHarness({
  audit: {
    signer: localKeySigner(readFileSync(keyFiles.privateKey, 'utf8')),
    verifier: localKeyVerifierFromFile(keyFiles.publicKey),
  },
});

describe('Workflow-change audit', () => {
  it('chains every workflow change with its authenticated author, and shows the author of a version', async () => {
    // Prepare / Act: alice (principal alice@laptop) creates, versions, disables, enables and deletes.
    const body = definition();
    const created = await h.alice.post('/v1/workflows', body);
    const id = created.body.workflow.workflowId as string;
    await h.alice.post(`/v1/workflows/${id}/versions`, { ...body, prompt: { system: 'v2' } });
    await h.alice.post(`/v1/workflows/${id}/disable`);
    await h.alice.post(`/v1/workflows/${id}/enable`);
    const version = await h.alice.get(`/v1/workflows/${id}/versions/2`);
    await h.alice.delete(`/v1/workflows/${id}`);
    const audit = await h.alice.get('/v1/audit');

    // Assess
    expect(created.body.version.author).toBe('alice@laptop');
    expect(version.body.version.author).toBe('alice@laptop');
    expect(audit.status).toBe(200);
    const mine = (audit.body.changes.entries as OwnerChange[]).filter((change) => change.workflowId === id);
    expect(mine.map((change) => [change.type, change.version, change.author])).toEqual([
      ['workflow_created', 1, 'alice@laptop'],
      ['workflow_version_added', 2, 'alice@laptop'],
      ['workflow_disabled', 2, 'alice@laptop'],
      ['workflow_enabled', 2, 'alice@laptop'],
      ['workflow_deleted', 2, 'alice@laptop'],
    ]);
    expect(mine[0]!.data.definitionHash).not.toBe(mine[1]!.data.definitionHash);
    expect(audit.body.changes.verification).toMatchObject({ ok: true });
    expect(audit.body.signedHeads.verification).toMatchObject({ ok: true, unsigned: { changes: 0 } });
    expect(audit.body.signedHeads.verification.newest.changes.hash).toBe(mine.at(-1)!.hash);
  });

  it('does not fork the chain when one owner makes changes concurrently', async () => {
    // Act: six creates and six disables of bob's workflows at once.
    const created = await Promise.all(
      Array.from({ length: 6 }, () => h.bob.post('/v1/workflows', definition())),
    );
    const disabled = await Promise.all(
      created.map((reply) => h.bob.post(`/v1/workflows/${reply.body.workflow.workflowId}/disable`)),
    );
    const audit = await h.bob.get('/v1/audit');

    // Assess
    expect([...created, ...disabled].map((reply) => reply.status)).toEqual([
      ...Array(6).fill(201),
      ...Array(6).fill(200),
    ]);
    expect(audit.body.changes.entries.map((change: OwnerChange) => change.seq)).toEqual(
      Array.from({ length: audit.body.changes.entries.length }, (_, i) => i),
    );
    expect(audit.body.changes.entries.filter((c: OwnerChange) => c.author === h.owners.bob)).toHaveLength(12);
    expect(audit.body.changes.verification).toMatchObject({ ok: true });
    expect(audit.body.signedHeads.verification).toMatchObject({ ok: true });
  });

  it('audits nothing for a refused change, and shows an owner only its own chains', async () => {
    // Prepare
    const body = definition();
    await h.alice.post('/v1/workflows', body);
    const before = (await h.alice.get('/v1/audit')).body.changes.entries.length;
    // Act
    const duplicate = await h.alice.post('/v1/workflows', body);
    const after = await h.alice.get('/v1/audit');
    // Assess
    expect(duplicate.status).toBe(409);
    expect(after.body.changes.entries).toHaveLength(before);
    expect(after.body.owner).toBe(h.owners.alice);
    expect(after.body.changes.entries.every((c: OwnerChange) => c.owner === h.owners.alice)).toBe(true);
  });

  it('writes no change when its audit entry cannot be written: both commit in one transaction', async () => {
    // Prepare: a stray item occupies the slot of alice's first change, so the audit write must fail.
    const t = apiHarness();
    await t.store.ctx.doc.send(
      new PutCommand({
        TableName: t.store.ctx.table,
        Item: { ...keys.ownerChange(t.owners.alice, 0), stray: true },
      }),
    );
    const body = definition();
    // Act
    const reply = await t.alice.post('/v1/workflows', body);
    const list = await t.alice.get('/v1/workflows');
    // Assess
    expect(reply.status).toBe(409);
    expect(reply.body.error.code).toBe('concurrent_update');
    expect(list.body.items).toEqual([]);
  });
});

describe('Signed anchor heads', () => {
  it('signs the anchor head when a run is anchored', async () => {
    // Prepare
    const created = await h.alice.post('/v1/workflows', definition());
    const run = await seedRun(h.store, { ...created.body.version, owner: h.owners.alice });
    // Act
    const anchor = await h.store.anchorRunHead(run, '2026-12-01T10:00:00.000Z');
    const audit = await h.alice.get('/v1/audit');
    // Assess
    expect(audit.body.anchors.verification).toMatchObject({ ok: true });
    expect(audit.body.signedHeads.verification).toMatchObject({ ok: true, unsigned: { anchors: 0 } });
    expect(audit.body.signedHeads.verification.newest.anchors).toEqual({
      seq: anchor.seq,
      hash: anchor.hash,
    });
  });

  it('fails verification when the table is rewritten consistently: the signature no longer matches', async () => {
    // Prepare: a fresh owner's chain of three changes, signed.
    const t = apiHarness({
      audit: {
        signer: localKeySigner(readFileSync(keyFiles.privateKey, 'utf8')),
        verifier: localKeyVerifierFromFile(keyFiles.publicKey),
      },
    });
    const body = definition();
    const created = await t.alice.post('/v1/workflows', body);
    await t.alice.post(`/v1/workflows/${created.body.workflow.workflowId}/disable`);
    await t.alice.post(`/v1/workflows/${created.body.workflow.workflowId}/enable`);
    const stored = (await t.alice.get('/v1/audit')).body.changes.entries as OwnerChange[];

    // Act: someone with write access to the table changes who disabled the workflow and re-seals every
    // later change and the chain head, so the chain itself verifies again.
    const rewritten: OwnerChange[] = [stored[0]!];
    for (const change of stored.slice(1)) {
      const { hash: _h, prevHash: _p, seq: _s, schemaVersion: _v, ...input } = change;
      const edited = change.type === 'workflow_disabled' ? { ...input, author: 'mallory' } : input;
      rewritten.push(sealOwnerChange(rewritten.at(-1), edited));
    }
    for (const change of rewritten) {
      await t.store.ctx.doc.send(
        new PutCommand({
          TableName: t.store.ctx.table,
          Item: { ...keys.ownerChange(change.owner, change.seq), ...change },
        }),
      );
    }
    await t.store.ctx.doc.send(
      new PutCommand({
        TableName: t.store.ctx.table,
        Item: { ...keys.ownerChangeHead(t.owners.alice), change: rewritten.at(-1) },
      }),
    );
    const audit = await t.alice.get('/v1/audit');

    // Assess
    expect(audit.body.changes.verification).toMatchObject({ ok: true });
    expect(audit.body.signedHeads.verification).toMatchObject({ ok: false, reason: 'head_mismatch' });
  });

  it('fails closed without a verifier', async () => {
    // Prepare
    const plain = apiHarness();
    await plain.alice.post('/v1/workflows', definition());
    // Act
    const audit = await plain.alice.get('/v1/audit');
    // Assess
    expect(audit.body.changes.verification).toMatchObject({ ok: true, count: 1 });
    expect(audit.body.signedHeads.verification).toMatchObject({ ok: false, reason: 'verifier_error' });
  });
});
