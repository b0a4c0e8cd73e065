/** Who the approval topic reaches, for which owners: `WF_APPROVER_OWNERS`, as the CDK construct wrote it. */
import { ENV } from '../../../infra/constructs/env-names.ts';
import { type ApproverReach, declaredApprovers, parseApproverOwners } from '../../notify/reach.ts';

/** The declared approvers of the environment; unset is none, unreadable throws (fail closed). */
export const awsApproverReach = (env: Readonly<Record<string, string | undefined>>): ApproverReach =>
  declaredApprovers('sns', parseApproverOwners(env[ENV.approverOwners]));
