/**
 * Which approvers a deployment can reach, and for which owners. On AWS an approver is reachable only when the
 * CDK subscribed their address to the approval topic, and only for the owners the operator declared them for
 * (`approvers: [{ email, owners }]`, compiled into the functions' bundles as `WF_APPROVER_OWNERS`); the subscription's filter
 * policy holds the same owners, so SNS drops a notice for another owner too. Locally the inbox and the terminal
 * reach everyone (the inbox lists each owner only their own links). The API refuses a workflow naming an
 * approver not reachable for its owner; `requestApproval` and the human-task requests notify only reachable ones.
 */
import * as z from '../zod.ts';
import { approverAttributeValue } from './sns.ts';

/** An approver declared for every owner (`owners: ['*']`): the operator's explicit choice, never a default. */
export const ANY_OWNER = '*';

/** Who a channel can deliver to. `channel` names it in refusals and the audit chain. */
export interface ApproverReach {
  readonly channel: string;
  /** Whether a notice from `owner`'s run can reach `approver` (an approver or a human task's assignee). */
  reaches(approver: string, owner: string): boolean;
}

/** Every approver is reachable: the local inbox and terminal. */
export const everyApprover = (channel: string): ApproverReach => ({ channel, reaches: () => true });

/** Approver (trimmed, lower-cased, as the SNS filter policies are) → the owners they were declared for. */
export type ApproverOwners = Readonly<Record<string, readonly string[]>>;

/** Only the declared approvers, each for their owners (or every owner, with `*`). */
export function declaredApprovers(channel: string, declared: ApproverOwners): ApproverReach {
  const byApprover = new Map(
    Object.entries(declared).map(([approver, owners]) => [approverAttributeValue(approver), owners]),
  );
  return {
    channel,
    reaches(approver, owner) {
      const owners = byApprover.get(approverAttributeValue(approver));
      return owners !== undefined && (owners.includes(ANY_OWNER) || owners.includes(owner));
    },
  };
}

const ApproverOwnersSchema = z.record(
  z.string().check(z.minLength(1)),
  z.array(z.string().check(z.minLength(1))).check(z.minLength(1)),
);

/**
 * The `WF_APPROVER_OWNERS` value (JSON: `{"carol@example.com": ["<owner id>", …]}`, bundled by the CDK
 * construct); unset or empty is none. Throws on anything else: a declaration that cannot be read must not
 * turn into "every owner" (fail closed).
 */
export function parseApproverOwners(text: string | undefined): ApproverOwners {
  if (text === undefined || text === '') return {};
  try {
    return ApproverOwnersSchema.parse(JSON.parse(text));
  } catch (error) {
    throw new Error('WF_APPROVER_OWNERS is not a map of approver → [owner ids]', { cause: error });
  }
}
