/**
 * Grant operations for owners: create, narrow, widen, revoke, read. Every change is a new version, audited
 * in the owner's change chain with its author. Grants are per owner (stored under the owner and the client
 * id): another owner's grant of the same client id is never read, so creating one answers the same whether
 * or not another owner granted that id (nothing to probe), and takes nothing from anyone (nothing to squat). A
 * grant applies only to a caller whose credential proves its owner (service.ts `authorizeCaller`).
 */
import { unreachableGrantApprovers } from '../api/approver-reach.ts';
import type { Clock, Ids } from '../core/ports.ts';
import { foreignCredentialRefs } from '../credentials/owner-check.ts';
import type { ApproverReach } from '../notify/reach.ts';
import type { StoreContext } from '../store/client.ts';
import { GrantChangeError } from './errors.ts';
import { directionProblem, grantProblems } from './grant-rules.ts';
import {
  type GrantHead,
  getGrantHead,
  listGrantVersions,
  listOwnerGrants,
  putGrantRecord,
} from './grant-store.ts';
import type { GrantRecord } from './records.ts';
import type { GrantSpec, GrantView } from './schemas.ts';

export type GrantDeps = {
  store: { ctx: StoreContext };
  clock: Clock;
  ids: Ids;
  /** Prefix of credential secret names; an owner's are `<prefix><ownerKey>/<name>`. @default 'wf/' */
  credentialNamePrefix?: string | undefined;
  /**
   * Who the deployment's approval channel reaches, for which owners: a grant's approvers are checked as a
   * workflow's are (shared/api/approver-reach.ts). Absent: every approver is reachable (the local inbox).
   */
  approverReach?: ApproverReach | undefined;
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
 * secrets and approvers declared for its owner (the same refusals and messages as a workflow save, the field
 * under `grant.`). Checked before anything is read or written.
 */
function checkValid(deps: GrantDeps, owner: string, grant: GrantSpec) {
  const foreign = foreignCredentialRefs(deps.credentialNamePrefix ?? 'wf/', owner, grant.credRefs).map(
    (problem) => ({ ...problem, path: `grant.${problem.path}` }),
  );
  const unreachable = deps.approverReach ? unreachableGrantApprovers(grant, deps.approverReach, owner) : [];
  const problems = [...grantProblems(grant), ...foreign, ...unreachable];
  if (problems.length > 0) throw new GrantChangeError('invalid', problems[0]!.message, problems[0]!.path);
}

async function ownGrant(deps: GrantDeps, actor: GrantActor, clientId: string): Promise<GrantHead> {
  const head = await getGrantHead(deps.store.ctx, actor.owner, clientId);
  if (!head) throw new GrantChangeError('not_found', 'grant not found');
  return head;
}

/** Grants `clientId` (again, after a revocation: a new version of the same grant). */
export async function createGrant(
  deps: GrantDeps,
  actor: GrantActor,
  input: { clientId: string; grant: GrantSpec },
): Promise<GrantView> {
  checkValid(deps, actor.owner, input.grant);
  const head = await getGrantHead(deps.store.ctx, actor.owner, input.clientId);
  const previous = head?.record;
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
  await putGrantRecord(deps.store.ctx, head, next, 'grant_created');
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
  const head = await ownGrant(deps, actor, clientId);
  const current = head.record;
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
    head,
    next,
    direction === 'narrow' ? 'grant_narrowed' : 'grant_widened',
  );
  return view(next);
}

/** Revokes the grant: queued jobs never start, running ones end at their next turn. */
export async function revokeGrant(deps: GrantDeps, actor: GrantActor, clientId: string): Promise<GrantView> {
  const head = await ownGrant(deps, actor, clientId);
  const current = head.record;
  if (current.revoked) return view(current);
  const next: GrantRecord = {
    ...current,
    version: current.version + 1,
    revoked: true,
    updatedAt: new Date(deps.clock.nowMs()).toISOString(),
    updatedBy: actor.principal,
  };
  await putGrantRecord(deps.store.ctx, head, next, 'grant_revoked');
  return view(next);
}

export async function getGrant(deps: GrantDeps, actor: GrantActor, clientId: string): Promise<GrantView> {
  return view((await ownGrant(deps, actor, clientId)).record);
}

/** The grant's versions, oldest first: who changed what, when. */
export async function getGrantHistory(
  deps: GrantDeps,
  actor: GrantActor,
  clientId: string,
): Promise<GrantView[]> {
  const { record } = await ownGrant(deps, actor, clientId);
  return (await listGrantVersions(deps.store.ctx, record.grantId)).map(view);
}

export async function listGrants(deps: GrantDeps, actor: GrantActor): Promise<GrantView[]> {
  return (await listOwnerGrants(deps.store.ctx, actor.owner)).map(view);
}
