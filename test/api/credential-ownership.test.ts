/**
 * Credential tenancy at save time, and owners with `|` and `/` (JWT subjects) end to end through the API:
 * DynamoDB keys, page tokens, runs.
 */
import { randomUUID } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { ownerKey } from '../../shared/credentials/owner-key.ts';
import { baseGrant } from '../jobs/support.ts';
import { apiHarness, definition, itemsOf, ownTableName } from './helpers.ts';

const suffix = randomUUID().slice(0, 8);
const h = apiHarness({
  tableName: await ownTableName(),
  owners: { alice: `auth0|${suffix}`, bob: `repo:org-${suffix}/x:ref:refs/heads/main` },
});
const aliceKey = ownerKey(h.owners.alice);
const bobKey = ownerKey(h.owners.bob);

const withCredential = (secret: string, overrides: Record<string, unknown> = {}) =>
  definition({ credRefs: { token: { secret } }, ...overrides });

describe('credRefs at save time', () => {
  it("accepts references to the owner's own secrets, by name and by ARN", async () => {
    const reply = await h.alice.post('/v1/workflows', withCredential(`wf/${aliceKey}/token`));
    expect(reply.status).toBe(201);
    const arn = `arn:aws:secretsmanager:eu-west-1:123456789012:secret:wf/${aliceKey}/token-AbCdEf`;
    expect((await h.alice.post('/v1/workflows', withCredential(arn))).status).toBe(201);
  });

  it.each([
    ["another owner's secret", () => `wf/${bobKey}/token`],
    [
      "another owner's secret by ARN",
      () => `arn:aws:secretsmanager:eu-west-1:123456789012:secret:wf/${bobKey}/t-AbCdEf`,
    ],
    ['an unscoped secret', () => 'wf/token'],
    ['a secret outside the credential prefix', () => `team/${aliceKey}/token`],
  ])('refuses %s with 400 naming credRefs.<slot>.secret, writing nothing', async (_label, secret) => {
    const before = await itemsOf(h.store, h.owners.alice);

    const reply = await h.alice.post('/v1/workflows', withCredential(secret()));

    expect(reply.status).toBe(400);
    expect(reply.body.error.code).toBe('validation_failed');
    expect(reply.body.error.fields).toEqual([
      { path: 'credRefs.token.secret', message: expect.stringContaining(`'wf/${aliceKey}/<name>'`) },
    ]);
    expect(await itemsOf(h.store, h.owners.alice)).toBe(before);
  });

  it('refuses a new version that points at a foreign secret, leaving the workflow as it was', async () => {
    const body = withCredential(`wf/${aliceKey}/token`);
    const created = await h.alice.post('/v1/workflows', body);
    const id = created.body.workflow.workflowId as string;

    const reply = await h.alice.post(`/v1/workflows/${id}/versions`, {
      ...body,
      credRefs: { token: { secret: `wf/${bobKey}/token` } },
    });

    expect(reply.status).toBe(400);
    expect(reply.body.error.fields[0].path).toBe('credRefs.token.secret');
    expect((await h.alice.get(`/v1/workflows/${id}`)).body.workflow.latestVersion).toBe(1);
  });
});

describe('grant credRefs at save time', () => {
  const grantWith = (secret: string) => baseGrant({ credRefs: { token: { secret } } });

  it("accepts a grant whose credRefs are the owner's own secrets", async () => {
    const reply = await h.alice.post('/v1/grants', {
      clientId: `own-${suffix}`,
      grant: grantWith(`wf/${aliceKey}/token`),
    });
    expect(reply.status).toBe(201);
  });

  it.each([
    ["another owner's secret", () => `wf/${bobKey}/token`],
    [
      "another owner's secret by ARN",
      () => `arn:aws:secretsmanager:eu-west-1:123456789012:secret:wf/${bobKey}/t-AbCdEf`,
    ],
    ['an unscoped secret', () => 'wf/token'],
  ])('refuses %s with 400 naming grant.credRefs.<slot>.secret, writing nothing', async (_label, secret) => {
    // Prepare
    const before = await itemsOf(h.store, h.owners.alice);
    const clientId = `foreign-${randomUUID().slice(0, 8)}`;

    // Act
    const reply = await h.alice.post('/v1/grants', { clientId, grant: grantWith(secret()) });

    // Assess
    expect(reply.status).toBe(400);
    expect(reply.body.error.code).toBe('validation_failed');
    expect(reply.body.error.fields).toEqual([
      { path: 'grant.credRefs.token.secret', message: expect.stringContaining(`'wf/${aliceKey}/<name>'`) },
    ]);
    expect(await itemsOf(h.store, h.owners.alice)).toBe(before);
    expect((await h.alice.get(`/v1/grants/${clientId}`)).status).toBe(404);
  });

  it('refuses a widening that adds a foreign secret, leaving the grant as it was', async () => {
    // Prepare
    const clientId = `widen-${suffix}`;
    expect((await h.alice.post('/v1/grants', { clientId, grant: baseGrant() })).status).toBe(201);

    // Act
    const reply = await h.alice.post(`/v1/grants/${clientId}/widen`, {
      grant: grantWith(`wf/${bobKey}/token`),
    });

    // Assess
    expect(reply.status).toBe(400);
    expect(reply.body.error.fields[0].path).toBe('grant.credRefs.token.secret');
    expect((await h.alice.get(`/v1/grants/${clientId}`)).body.grant).toMatchObject({
      version: 1,
      grant: { credRefs: {} },
    });
  });
});

describe('owners with | and / (JWT subjects)', () => {
  it('create, list, read and run workflows, each fenced from the other', async () => {
    const created = await h.bob.post('/v1/workflows', withCredential(`wf/${bobKey}/token`));
    expect(created.status).toBe(201);
    expect(created.body.workflow.owner).toBe(h.owners.bob);
    const id = created.body.workflow.workflowId as string;

    const run = await h.bob.post(
      `/v1/workflows/${id}/runs`,
      { input: {} },
      { headers: { 'idempotency-key': `k-${suffix}` } },
    );
    expect(run.status).toBe(201);
    expect(run.body.run.owner).toBe(h.owners.bob);

    const listed = await h.bob.get('/v1/workflows?limit=1');
    expect(listed.status).toBe(200);
    expect(listed.body.items.length).toBe(1);
    const runs = await h.bob.get(`/v1/runs?workflowId=${id}`);
    expect(runs.body.items.map((item: { runId: string }) => item.runId)).toEqual([run.body.run.runId]);

    expect((await h.alice.get(`/v1/workflows/${id}`)).status).toBe(404);
    expect((await h.alice.get(`/v1/runs/${run.body.run.runId}`)).status).toBe(404);
  });
});
