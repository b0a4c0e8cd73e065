/**
 * The ids of the tenancy check (tenancy-routes.test.ts): A's (`foreign`, filled in by tenancy-world-a.ts), B's
 * own (`ownB`, tenancy-world-b.ts), and the missing ids of the same shapes a probe sends instead of A's.
 */
import { ownerAuditToken, runAuditToken } from '../../shared/api/audit-cursors.ts';
import { ownerSecretPrefix } from '../../shared/credentials/owner-key.ts';
import { jobKeys } from '../../shared/jobs/records.ts';
import { humanTaskId } from '../../shared/schemas/human-task.ts';
import { jobIdOf } from '../../shared/schemas/job.ts';
import { encodeToken } from '../../shared/store/index.ts';
import { clientKey } from '../jobs/support.ts';
import { missingRunId } from '../support/store.ts';
import type { Caller, IdKind, OwnKind } from './tenancy-probe.ts';
import { CLIENTS, FORGED } from './tenancy-probe-builders.ts';

export const foreign = {} as Record<IdKind, string>;
/** B's own objects, named in a probe's path beside A's ids in its query or body. */
export const ownB = {} as Record<OwnKind, string>;
/** A's ids that no answer to B may carry (client ids are names, not secrets: B may use the same). */
export const leakable: string[] = [];
/** Each client's grant id: a missing job id is one under the caller's own grant. */
export const grantIds: Record<string, string> = {};

export const MISSING: Record<IdKind, string> = {
  agentWorkflow: 'wf_missing0000000000',
  graphWorkflow: 'wf_missing0000000000',
  externalWorkflow: 'wf_missing0000000000',
  agentRun: missingRunId(),
  graphRun: missingRunId(),
  externalRun: missingRunId(),
  jobRun: missingRunId(),
  childRun: missingRunId(),
  approval: 'apr_missing0000000000',
  approvalLink: FORGED,
  // A nonce of nobody's (set with A's, nonceOfNobody) and a state nothing sealed.
  approvalNonce: '',
  approvalState: FORGED,
  humanTask: humanTaskId(missingRunId(), 'manager_review', 1),
  humanTaskLink: FORGED,
  humanTaskNonce: '',
  job: '', // per caller: missingJob
  client: 'nobody-granted',
  clientKey: clientKey('nobody-granted'),
  // Page tokens of a listing of nobody's: A's must be refused as theirs is.
  runsToken: Buffer.from(
    JSON.stringify({ pk: 'RUN#run_x', sk: 'RUN', gsi1pk: 'OWNER#nobody', gsi1sk: 'RUN#x' }),
  ).toString('base64url'),
  workflowsToken: Buffer.from(JSON.stringify({ pk: 'OWNER#nobody', sk: 'WF#wf_x' })).toString('base64url'),
  ...missingPageTokens(),
  secret: `${ownerSecretPrefix('wf/', 'team-nobody')}tenancy`,
  grantedClient: 'b-fresh-client',
  owner: 'team-nobody',
  alertTopic: 'arn:aws:sns:eu-west-1:123456789012:tenancy-undeclared',
  approver: 'nobody-approver@example.com',
  // Keys nobody used: each starts one run, or submits one job, of B's (its probe's one request with it).
  runKey: 'tenancy-fresh-run-key',
  jobKey: 'tenancy-fresh-job-key',
  versionTag: '"999"',
};
/**
 * The page tokens of listings of nobody's (a missing owner, run or grant), each made as its route makes them:
 * A's token must be refused as these are.
 */
function missingPageTokens() {
  const run = missingRunId();
  const key = (value: Record<string, string>) => encodeToken(value) ?? '';
  const start = { seq: 1, prevHash: '0'.repeat(64) };
  return {
    approvalsToken: key({ pk: 'APR#apr_x', sk: 'APR', gsi1pk: 'OWNER#nobody', gsi1sk: 'APR#x' }),
    humanTasksToken: key({ pk: `RUN#${run}`, sk: 'HTK#x', gsi1pk: 'OWNER#nobody', gsi1sk: 'HTK#x' }),
    auditToken: ownerAuditToken('nobody', {
      section: 'changes',
      changes: start,
      anchors: start,
      signed: { index: 0 },
    }),
    jobsToken: key(jobKeys.job('grant_none000', 1)),
    grantJobsToken: key(jobKeys.job('grant_none000', 1)),
    transcriptToken: key({ pk: `RUN#${run}`, sk: 'MSG#000000001' }),
    receiptsToken: key({ pk: `RUN#${run}`, sk: 'TOOL#x' }),
    runAuditToken: runAuditToken(run, { item: 1, ...start }),
    stepsToken: key({ pk: `RUN#${run}`, sk: 'STEP#triage' }),
  };
}
const missingJob = (caller: Caller) =>
  jobIdOf(grantIds[caller === 'siblingA' ? CLIENTS.sibling : CLIENTS.b] ?? 'grant_none000', 999_999);
export const missingOf = (kind: IdKind, caller: Caller) =>
  kind === 'job' ? missingJob(caller) : MISSING[kind];

export const ownOf = (kind: OwnKind): string => {
  const id = ownB[kind];
  if (id === undefined) throw new Error(`the setup made no ${kind} of B's`);
  return id;
};

/** Fills in `leakable` once A's and B's objects are made: A's ids and the grant ids of A's clients. */
export function markLeakable(): void {
  const ids = Object.entries(foreign)
    .filter(
      ([kind]) =>
        // Names and keys B may use too (its own runs and jobs record the keys it sent).
        ![
          'client',
          'grantedClient',
          'secret',
          'owner',
          'alertTopic',
          'approver',
          'runKey',
          'jobKey',
          'versionTag',
        ].includes(kind) && !kind.endsWith('Token'),
    )
    .map(([, id]) => id)
    .concat(Object.values(grantIds).filter((id) => id !== grantIds[CLIENTS.b]));
  leakable.splice(0, leakable.length, ...ids);
}
