/**
 * The audit answers stay under Lambda's 6 MB response limit
 * (https://docs.aws.amazon.com/lambda/latest/dg/gettingstarted-limits.html): a run's chain and an owner's chains
 * larger than that are read through GET /v1/runs/{id}/audit and GET /v1/audit a page at a time, each page's
 * Lambda result under 6 MB as the Lambda adapter (hono/aws-lambda) builds it, each page verified from the
 * checkpoint its token carries, and the pages joined are the stored chains, which verify whole. A token is bound
 * to its run or owner: another owner's is refused as a forged one is.
 */
import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import {
  type AuditEntry,
  type OwnerAnchor,
  type OwnerChange,
  sealOwnerAnchor,
  sealOwnerChange,
  verifyAuditChain,
  verifyOwnerChain,
  verifyOwnerChanges,
  verifySignedHeads,
} from '../../shared/audit/index.ts';
import {
  ensureLocalSigningKey,
  localKeySigner,
  localKeyVerifierFromFile,
} from '../../shared/audit-signing/index.ts';
import {
  type OwnerAuditPage,
  type RunAuditPage,
  readOwnerAudit,
  readRunAudit,
} from '../../shared/runs/audit-reader.ts';
import { keys } from '../../shared/store/keys.ts';
import { growRunChain } from '../support/audit-chain.ts';
import {
  jsonText,
  LAMBDA_RESPONSE_BYTES,
  lambdaGet as lambdaGetOf,
  putItems,
} from '../support/lambda-pages.ts';
import { apiHarness, definition, ownTableName } from './helpers.ts';

const keyFiles = ensureLocalSigningKey(mkdtempSync(join(tmpdir(), 'wf-audit-pages-')));
const verifier = localKeyVerifierFromFile(keyFiles.publicKey);
// The run's chain is bob's, the owner chains alice's: bob's workflows add nothing to alice's chains.
const h = apiHarness({
  tableName: await ownTableName(),
  audit: { signer: localKeySigner(readFileSync(keyFiles.privateKey, 'utf8')), verifier },
});
const AT = '2026-12-02T00:00:00.000Z';

/** The API behind the Lambda adapter, as API Gateway invokes it, recording each result's size. */
function lambdaReader<T>(key: string, sizes: number[]) {
  return async (path: string): Promise<T> => {
    const { result, bytes } = await lambdaGetOf(h.app, key, path);
    expect(result.statusCode).toBe(200);
    sizes.push(bytes);
    return JSON.parse(result.body) as T;
  };
}

describe('GET /v1/runs/{id}/audit over 6 MB', () => {
  let runId: string;
  let stored: AuditEntry[];
  beforeAll(async () => {
    const { workflowId } = (await h.bob.post('/v1/workflows', definition())).body.workflow;
    runId = (await h.bob.post(`/v1/workflows/${workflowId}/runs`, { input: 'hello' })).body.run.runId;
    stored = await growRunChain(h.store, runId, 120, 30_000, AT);
  }, 120_000);

  it('gives every page within a Lambda response; the pages, each verified from its checkpoint, join into the chain', async () => {
    // Prepare: the chain would not fit one Lambda response.
    expect(Buffer.byteLength(JSON.stringify(JSON.stringify(stored)))).toBeGreaterThan(LAMBDA_RESPONSE_BYTES);
    const sizes: number[] = [];
    const pages: RunAuditPage[] = [];
    const read = lambdaReader<RunAuditPage>(h.keys.bob, sizes);

    // Act: as the CLI reads it (audit-reader.ts), following nextToken.
    const audit = await readRunAudit(runId, async (path) => {
      const page = await read(path);
      pages.push(page);
      return page;
    });

    // Assess
    expect(sizes.length).toBeGreaterThan(1);
    expect(Math.max(...sizes)).toBeLessThan(LAMBDA_RESPONSE_BYTES);
    expect(audit.entries).toEqual(stored);
    for (const page of pages) expect(page.verification.ok).toBe(true);
    // Each page starts where the one before ended, linked from its last hash.
    for (const [i, page] of pages.entries())
      if (i > 0) expect(page.from.prevHash).toBe(pages[i - 1]!.entries.at(-1)!.hash);
    expect(audit.verification).toEqual({ ok: true, count: stored.length, head: stored.at(-1)!.hash });
    expect(verifyAuditChain(audit.entries, { owner: stored[0]!.owner, runId }).ok).toBe(true);
    console.log(
      `[run audit] ${stored.length} entries, ${sizes.length} pages, largest Lambda result ${Math.max(...sizes)} bytes`,
    );
  });

  it("refuses another run's token as it refuses a forged one", async () => {
    const first = (await h.bob.get(`/v1/runs/${runId}/audit`)).body as RunAuditPage;
    const { workflowId } = (await h.bob.post('/v1/workflows', definition())).body.workflow;
    const other = (await h.bob.post(`/v1/workflows/${workflowId}/runs`, { input: 'x' })).body.run.runId;
    const foreign = await h.bob.get(
      `/v1/runs/${other}/audit?nextToken=${encodeURIComponent(first.nextToken!)}`,
    );
    const garbage = await h.bob.get(`/v1/runs/${other}/audit?nextToken=garbage`);
    expect(foreign.status).toBe(400);
    expect(foreign.body).toEqual(garbage.body);
  });
});

/** Writes an owner's chains: `changes` workflow changes of `bytes` of data, `anchors` anchors, signed twice. */
async function seedOwnerChains(owner: string, counts: { changes: number; anchors: number; bytes: number }) {
  const changes: OwnerChange[] = [];
  const anchors: OwnerAnchor[] = [];
  const write = async (from: { changes: number; anchors: number }) => {
    await putItems(h.store, [
      ...changes.slice(from.changes).map((c) => ({ ...keys.ownerChange(owner, c.seq), ...c })),
      ...anchors.slice(from.anchors).map((a) => ({ ...keys.ownerAnchor(owner, a.seq), ...a })),
      { ...keys.ownerChangeHead(owner), change: changes.at(-1) },
      { ...keys.ownerAnchorHead(owner), anchor: anchors.at(-1) },
    ]);
    await h.store.signOwnerHeads(owner, AT);
  };
  for (const half of [0, 1]) {
    const from = { changes: changes.length, anchors: anchors.length };
    for (let i = 0; i < counts.changes / 2; i++)
      changes.push(
        sealOwnerChange(changes.at(-1), {
          owner,
          at: AT,
          type: 'workflow_version_added',
          author: 'alice@laptop',
          workflowId: 'wf_big',
          version: changes.length + 1,
          data: { definition: jsonText(counts.bytes) },
        }),
      );
    for (let i = 0; i < counts.anchors / 2; i++)
      anchors.push(
        sealOwnerAnchor(anchors.at(-1), {
          owner,
          at: AT,
          runId: `run_${half}x${String(i).padStart(8, '0')}`,
          runHeadSeq: 3,
          runHead: 'a'.repeat(64),
        }),
      );
    await write(from);
  }
  return { changes, anchors };
}

describe('GET /v1/audit over 6 MB', () => {
  let chains: { changes: OwnerChange[]; anchors: OwnerAnchor[] };
  beforeAll(async () => {
    chains = await seedOwnerChains(h.owners.alice, { changes: 40, anchors: 2000, bytes: 80_000 });
  }, 180_000);

  it('gives every page within a Lambda response; the pages join into chains that verify whole', async () => {
    // Prepare: the chains would not fit one Lambda response.
    expect(Buffer.byteLength(JSON.stringify(JSON.stringify(chains)))).toBeGreaterThan(LAMBDA_RESPONSE_BYTES);
    const sizes: number[] = [];
    const pages: OwnerAuditPage[] = [];
    const read = lambdaReader<OwnerAuditPage>(h.keys.alice, sizes);

    // Act: as `wf audit verify --owner` reads it (audit-reader.ts).
    const audit = await readOwnerAudit(async (path) => {
      const page = await read(path);
      pages.push(page);
      return page;
    });

    // Assess: every page small enough and verified by the server from its checkpoint.
    expect(sizes.length).toBeGreaterThan(1);
    expect(Math.max(...sizes)).toBeLessThan(LAMBDA_RESPONSE_BYTES);
    for (const page of pages) {
      expect(page.changes.verification.ok).toBe(true);
      expect(page.anchors.verification.ok).toBe(true);
      expect(page.signedHeads.verification).toMatchObject({ ok: true });
    }
    expect(audit.changes.entries).toEqual(chains.changes);
    expect(audit.anchors.entries).toEqual(chains.anchors);
    expect(audit.changes.verification).toMatchObject({
      ok: true,
      count: 40,
      head: chains.changes.at(-1)!.hash,
    });
    expect(audit.anchors.verification).toMatchObject({
      ok: true,
      count: 2000,
      head: chains.anchors.at(-1)!.hash,
    });
    expect(audit.signedHeads.verification).toMatchObject({
      ok: true,
      count: 2,
      unsigned: { anchors: 0, changes: 0 },
    });
    // And joined, they verify whole here, with the public key.
    const owner = h.owners.alice;
    expect(verifyOwnerChanges(audit.changes.entries, { owner }).ok).toBe(true);
    expect(verifyOwnerChain(audit.anchors.entries, { owner }).ok).toBe(true);
    const signed = await verifySignedHeads(
      audit.signedHeads.entries,
      { anchors: audit.anchors.entries, changes: audit.changes.entries },
      { owner, verifier },
    );
    expect(signed).toMatchObject({ ok: true, count: 2, unsigned: { anchors: 0, changes: 0 } });
    console.log(
      `[owner audit] 40 changes of 80 KB, 2000 anchors, 2 signed heads: ${sizes.length} pages, largest Lambda result ${Math.max(...sizes)} bytes`,
    );
  });

  it("refuses another owner's token as it refuses a forged one", async () => {
    const first = (await h.alice.get('/v1/audit')).body as OwnerAuditPage;
    expect(first.nextToken).toBeDefined();
    const foreign = await h.bob.get(`/v1/audit?nextToken=${encodeURIComponent(first.nextToken!)}`);
    const garbage = await h.bob.get('/v1/audit?nextToken=garbage');
    expect(foreign.status).toBe(400);
    expect(foreign.body).toEqual(garbage.body);
  });
});

describe('GET /v1/audit pages verified from their checkpoints', () => {
  it('names an entry changed on a later page, on its page and in the chains joined', async () => {
    // Prepare: alice's chains (seeded above) span several pages; change 30's content altered, its hash kept.
    const owner = h.owners.alice;
    const [change] = (await h.store.auditRanges.owner(owner, 'changes', 30, 1)).entries as OwnerChange[];
    await putItems(h.store, [{ ...keys.ownerChange(owner, 30), ...change!, author: 'mallory' }]);
    const pages: OwnerAuditPage[] = [];

    // Act
    const audit = await readOwnerAudit(async (path) => {
      const page = JSON.parse((await lambdaGetOf(h.app, h.keys.alice, path)).result.body) as OwnerAuditPage;
      pages.push(page);
      return page;
    });

    // Assess: the page holding it fails from its checkpoint (not the first page), and so does the chain joined.
    const broken = pages.findIndex((page) => !page.changes.verification.ok);
    expect(broken).toBeGreaterThan(0);
    expect(pages[broken]!.changes.from.seq).toBeGreaterThan(0);
    expect(pages[broken]!.changes.verification).toMatchObject({
      firstBrokenSeq: 30,
      reason: 'hash_mismatch',
    });
    expect(audit.changes.verification).toMatchObject({
      ok: false,
      firstBrokenSeq: 30,
      reason: 'hash_mismatch',
    });
  });
});
