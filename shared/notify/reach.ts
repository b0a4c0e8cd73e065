/**
 * Which approvers a deployment can reach. On AWS an approver is reachable only when the CDK subscribed their
 * address to the approval topic (the list reaches the functions as `WF_APPROVERS`); locally the inbox and the
 * terminal reach everyone. The API refuses a workflow naming an unreachable approver; `requestApproval`
 * notifies and audits only reachable ones.
 */
import { approverAttributeValue } from './sns.ts';

/** Who a channel can deliver to. `channel` names it in refusals and the audit chain. */
export interface ApproverReach {
  readonly channel: string;
  reaches(approver: string): boolean;
}

/** Every approver is reachable: the local inbox and terminal. */
export const everyApprover = (channel: string): ApproverReach => ({ channel, reaches: () => true });

/** Only the listed approvers (compared trimmed and lower-cased, as the SNS filter policies are). */
export function listedApprovers(channel: string, approvers: readonly string[]): ApproverReach {
  const listed = new Set(approvers.map(approverAttributeValue));
  return { channel, reaches: (approver) => listed.has(approverAttributeValue(approver)) };
}

/** The approver list of a comma-separated environment value (`WF_APPROVERS`); unset or empty is none. */
export const parseApproverList = (value: string | undefined): string[] =>
  (value ?? '')
    .split(',')
    .map((each) => each.trim())
    .filter((each) => each !== '');
