/**
 * Grants are per owner and apply only to a credential proving their owner: on AWS a machine token's owner
 * scope (`wf-jobs/owner:<owner>`, which the user pool's operator allows on the app client), never whoever
 * created a grant first. So a client id is no namespace owners share: bob granting alice's bot's id admits
 * nothing of alice's bot, takes nothing from alice, and tells bob nothing of alice's grants.
 */
import { randomUUID } from 'node:crypto';
import { GetCommand, PutCommand } from '@aws-sdk/lib-dynamodb';
import { describe, expect, it } from 'vitest';
import { jwtAuthenticator } from '../../shared/api/auth.ts';
import { jobCallerOf } from '../../shared/api/routes/jobs.ts';
import {
  authorizeCaller,
  createGrant,
  type GrantDeps,
  GrantSpecSchema,
  getGrant,
  type JobsDeps,
  revokeGrant,
} from '../../shared/jobs/index.ts';
import { grantIndexKeys, jobKeys } from '../../shared/jobs/records.ts';
import { FixedClock, randomIds, testStore, uniqueOwner } from '../support/store.ts';
import { baseGrant } from './support.ts';

const store = testStore();
const deps: GrantDeps = { store, clock: new FixedClock(), ids: randomIds };
const jobsDeps = { store } as unknown as JobsDeps;
const spec = GrantSpecSchema.parse(baseGrant());
const actor = (owner: string) => ({ owner, principal: `${owner}@laptop` });

/** The job caller of a verified client-credentials token of `clientId` with these scopes. */
async function tokenCaller(clientId: string, scope?: string) {
  const claims = { sub: clientId, client_id: clientId, token_use: 'access', ...(scope ? { scope } : {}) };
  const identity = await jwtAuthenticator().authenticate(new Request('http://x/'), {
    event: { requestContext: { authorizer: { jwt: { claims } } } },
  });
  if (!identity) throw new Error('the token was not accepted');
  return jobCallerOf(identity);
}
const proving = (owner: string) => `wf-jobs/owner:${owner} wf-jobs/jobs`;

const owners = () => ({ alice: uniqueOwner(), bob: uniqueOwner(), bot: `bot-${randomUUID().slice(0, 8)}` });

describe('Grants: per owner, applied only to a credential proving the owner', () => {
  it("does not admit a token proving alice under bob's grant of alice's client id (not_granted)", async () => {
    // Prepare: bob grants the id of alice's bot before alice does (app-client ids are not secret).
    const { alice, bob, bot } = owners();
    await createGrant(deps, actor(bob), { clientId: bot, grant: spec });

    // Act & Assess
    await expect(
      authorizeCaller(jobsDeps, await tokenCaller(bot, proving(alice)), 'jobs:submit'),
    ).rejects.toMatchObject({ kind: 'not_granted' });
    await expect(authorizeCaller(jobsDeps, await tokenCaller(bot), 'jobs:submit')).rejects.toMatchObject({
      kind: 'not_granted',
    });
    // Bob's grant applies to a token proving bob only.
    const asBob = await authorizeCaller(jobsDeps, await tokenCaller(bot, proving(bob)), 'jobs:submit');
    expect(asBob.owner).toBe(bob);
  });

  it('lets alice grant her client id after bob did, and admits her token under her own grant', async () => {
    const { alice, bob, bot } = owners();
    await createGrant(deps, actor(bob), { clientId: bot, grant: spec });

    const mine = await createGrant(deps, actor(alice), { clientId: bot, grant: spec });
    const granted = await authorizeCaller(jobsDeps, await tokenCaller(bot, proving(alice)), 'jobs:submit');

    expect(mine).toMatchObject({ clientId: bot, version: 1, revoked: false });
    expect(granted).toMatchObject({ owner: alice, grantId: mine.grantId });
  });

  it('answers bob the same whether or not alice granted the client id (nothing to probe)', async () => {
    // Prepare
    const { alice, bob, bot } = owners();
    const free = `${bot}-free`;
    await createGrant(deps, actor(alice), { clientId: bot, grant: spec });

    // Act
    const taken = await createGrant(deps, actor(bob), { clientId: bot, grant: spec });
    const untaken = await createGrant(deps, actor(bob), { clientId: free, grant: spec });

    // Assess: the same answer but for the ids; alice's grant is untouched and never shown to bob.
    const shape = ({ grantId: _g, clientId: _c, ...rest }: Record<string, unknown>) => rest;
    expect(shape(taken)).toEqual(shape(untaken));
    expect(taken.grantId).not.toBe((await getGrant(deps, actor(alice), bot)).grantId);
    await expect(getGrant(deps, actor(bob), `${bot}-never`)).rejects.toMatchObject({ kind: 'not_found' });
  });

  it('reads a grant stored before grants were per owner for its owner only, and moves it on its next change', async () => {
    // Prepare: a head under the old key (`CLIENT#<clientId>`), as an earlier version wrote it.
    const { alice, bob, bot } = owners();
    const record = {
      owner: alice,
      clientId: bot,
      grantId: randomIds.next('grant'),
      version: 1,
      revoked: false,
      grant: spec,
      createdAt: '2026-11-01T00:00:00.000Z',
      updatedAt: '2026-11-01T00:00:00.000Z',
      updatedBy: 'alice@laptop',
    };
    const legacyKey = jobKeys.legacyGrantHead(bot);
    await store.ctx.doc.send(
      new PutCommand({
        TableName: store.ctx.table,
        Item: { ...legacyKey, ...record, ...grantIndexKeys(alice, bot, record.grantId) },
      }),
    );

    // Act & Assess: alice's token is admitted under it, bob's is not.
    const admitted = await authorizeCaller(jobsDeps, await tokenCaller(bot, proving(alice)), 'jobs:read');
    expect(admitted.grantId).toBe(record.grantId);
    await expect(
      authorizeCaller(jobsDeps, await tokenCaller(bot, proving(bob)), 'jobs:read'),
    ).rejects.toMatchObject({ kind: 'not_granted' });

    // Act: alice revokes it; Assess: it now lives under her per-owner key, the old head is gone.
    const revoked = await revokeGrant(deps, actor(alice), bot);
    expect(revoked).toMatchObject({ grantId: record.grantId, version: 2, revoked: true });
    const item = async (key: { pk: string; sk: string }) =>
      (
        await store.ctx.doc.send(
          new GetCommand({ TableName: store.ctx.table, Key: key, ConsistentRead: true }),
        )
      ).Item;
    expect(await item(legacyKey)).toBeUndefined();
    expect(await item(jobKeys.grantHead(alice, bot))).toMatchObject({
      owner: alice,
      version: 2,
      revoked: true,
    });
  });
});

describe('Function: jwtAuthenticator (machine tokens)', () => {
  it.each([
    ['one owner scope', 'wf-jobs/owner:team-a wf-jobs/jobs', 'team-a'],
    ['no owner scope', 'wf-jobs/jobs', ''],
    ['two owner scopes (never guessed)', 'wf-jobs/owner:team-a wf-jobs/owner:team-b', ''],
    ['an invalid owner id', 'wf-jobs/owner:team#a', ''],
  ])('makes a client token with %s a client of the owner it proves', async (_what, scope, owner) => {
    expect((await tokenCaller('bot-1', scope)).owner).toBe(owner);
  });
});
