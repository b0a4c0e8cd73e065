/**
 * Who the approval topic reaches, for which owners: the declarations the CDK compiled into the function's bundle.
 *
 * They are not an environment variable: Lambda holds at most 4 KB of environment variables per function
 * (https://docs.aws.amazon.com/lambda/latest/dg/gettingstarted-limits.html), about 35 approvers. The CDK
 * bundles the four functions that check approvers (api, workflow-write, request-approval, human-task) with
 * `process.env.WF_APPROVER_OWNERS` defined as the declarations' JSON (an esbuild define, `bundledConstants` in
 * infra/constructs/runtime-function.ts): no call at cold start, no IAM, and a change of approvers rebuilds and
 * redeploys those functions as an environment change did. Unbundled (the tests, the IAM simulation) the same
 * expression reads the process's variable.
 */
import { type ApproverReach, declaredApprovers, parseApproverOwners } from '../../notify/reach.ts';

/**
 * The declared approvers as bundled; none when nothing was bundled, unreadable throws (fail closed).
 * The expression is spelled out: esbuild's define replaces exactly `process.env.WF_APPROVER_OWNERS`.
 */
export const awsApproverReach = (): ApproverReach =>
  declaredApprovers('sns', parseApproverOwners(process.env.WF_APPROVER_OWNERS));
