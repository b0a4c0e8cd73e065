/**
 * Grant operations for owners: create, narrow, widen, revoke, read. Every change is a new version, audited
 * in the owner's change chain with its author. A client belongs to one owner: a client id granted by one
 * owner cannot be granted by another (the same refusal whether or not it exists, so ids cannot be probed).
 */
import type { Clock, Ids } from '../core/ports.ts';
import { foreignCredentialRefs } from '../credentials/owner-check.ts';
import type { StoreContext } from '../store/client.ts';
import { GrantChangeError } from './errors.ts';
import { directionProblem, grantProblems } from './grant-rules.ts';
import { getGrantRecord, listGrantVersions, listOwnerGrants, putGrantRecord } from './grant-store.ts';
import type { GrantRecord } from './records.ts';
import type { GrantSpec, GrantView } from './schemas.ts';

export type GrantDeps = {
  store: { ctx: StoreContext };
  clock: Clock;
  ids: Ids;
  /** Prefix of credential secret names; an owner's are `<prefix><ownerKey>/<name>`. @default 'wf/' */
  credentialNamePrefix?: string | undefined;
};
/** The owner acting, from verified identity: `principal` is recorded as the author. */
export type GrantActor = { owner: string; principal: string };

const view = (record: GrantRecord): GrantView => ({
  clientId: record.clientId,
  grantId: record.grantId,
  version: record.version,
  revoked: record.revoked,
  grant: record.grant,
  createdAt: record.createdAt,
  updatedAt: record.updatedAt,
  updatedBy: record.updatedBy,
});

/**
 * A grant is a source of jobs run as its owner, so like a workflow it may name only the owner's own credential
 * secrets (the same refusal and message as a workflow save, the field under `grant.`).
 */
function checkValid(deps: GrantDeps, owner: string, grant: GrantSpec) {
  const foreign = foreignCredentialRefs(deps.credentialNamePrefix ?? 'wf/', owner, grant.credRefs).map(
    (problem) => ({ ...problem, path: `grant.${problem.path}` }),
  );
  const problems = [...grantProblems(grant), ...foreign];
  if (problems.length > 0) throw new GrantChangeError('invalid', problems[0]!.message, problems[0]!.path);
}

async function ownGrant(deps: GrantDeps, actor: GrantActor, clientId: string): Promise<GrantRecord> {
  const record = await getGrantRecord(deps.store.ctx, clientId);
  if (!record || record.owner !== actor.owner) throw new GrantChangeError('not_found', 'grant not found');
  return record;
}

/** Grants `clientId` (again, after a revocation: a new version of the same grant). */
export async function createGrant(
  deps: GrantDeps,
  actor: GrantActor,
  input: { clientId: string; grant: GrantSpec },
): Promise<GrantView> {
  checkValid(deps, actor.owner, input.grant);
  const previous = await getGrantRecord(deps.store.ctx, input.clientId);
  if (previous && previous.owner !== actor.owner)
    throw new GrantChangeError('conflict', 'this client id cannot be granted; use another', 'clientId');
  if (previous && !previous.revoked)
    throw new GrantChangeError(
      'conflict',
      'this client is already granted: narrow, widen or revoke it',
      'clientId',
    );
  const now = new Date(deps.clock.nowMs()).toISOString();
  const next: GrantRecord = {
    owner: actor.owner,
    clientId: input.clientId,
    grantId: previous?.grantId ?? deps.ids.next('grant'),
    version: (previous?.version ?? 0) + 1,
    revoked: false,
    grant: input.grant,
    createdAt: previous?.createdAt ?? now,
    updatedAt: now,
    updatedBy: actor.principal,
  };
  await putGrantRecord(deps.store.ctx, previous, next, 'grant_created');
  return view(next);
}

/** Replaces the grant with `grant`, which must be a narrowing (or a widening) of the current one. */
export async function changeGrant(
  deps: GrantDeps,
  actor: GrantActor,
  clientId: string,
  direction: 'narrow' | 'widen',
  input: { grant: GrantSpec; expectedVersion?: number | undefined },
): Promise<GrantView> {
  const current = await ownGrant(deps, actor, clientId);
  if (current.revoked)
    throw new GrantChangeError('conflict', 'the grant is revoked; create it again', 'clientId');
  if (input.expectedVersion !== undefined && input.expectedVersion !== current.version)
    throw new GrantChangeError('conflict', `the grant is at version ${current.version}`, 'expectedVersion');
  checkValid(deps, actor.owner, input.grant);
  const problem = directionProblem(current.grant, input.grant, direction);
  if (problem) throw new GrantChangeError('invalid', problem.message, problem.field);
  const next: GrantRecord = {
    ...current,
    version: current.version + 1,
    grant: input.grant,
    updatedAt: new Date(deps.clock.nowMs()).toISOString(),
    updatedBy: actor.principal,
  };
  await putGrantRecord(
    deps.store.ctx,
    current,
    next,
    direction === 'narrow' ? 'grant_narrowed' : 'grant_widened',
  );
  return view(next);
}

/** Revokes the grant: queued jobs never start, running ones end at their next turn. */
export async function revokeGrant(deps: GrantDeps, actor: GrantActor, clientId: string): Promise<GrantView> {
  const current = await ownGrant(deps, actor, clientId);
  if (current.revoked) return view(current);
  const next: GrantRecord = {
    ...current,
    version: current.version + 1,
    revoked: true,
    updatedAt: new Date(deps.clock.nowMs()).toISOString(),
    updatedBy: actor.principal,
  };
  await putGrantRecord(deps.store.ctx, current, next, 'grant_revoked');
  return view(next);
}

export async function getGrant(deps: GrantDeps, actor: GrantActor, clientId: string): Promise<GrantView> {
  return view(await ownGrant(deps, actor, clientId));
}

/** The grant's versions, oldest first: who changed what, when. */
export async function getGrantHistory(
  deps: GrantDeps,
  actor: GrantActor,
  clientId: string,
): Promise<GrantView[]> {
  const current = await ownGrant(deps, actor, clientId);
  return (await listGrantVersions(deps.store.ctx, current.grantId)).map(view);
}

export async function listGrants(deps: GrantDeps, actor: GrantActor): Promise<GrantView[]> {
  return (await listOwnerGrants(deps.store.ctx, actor.owner)).map(view);
}
